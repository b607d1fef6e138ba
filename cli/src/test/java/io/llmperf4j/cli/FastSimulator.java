package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;

import java.time.Duration;
import java.util.Map;

/** The session tests' simulator on 127.0.0.1: 5 ms to the first token, 1 ms between tokens, and its endpoint. */
final class FastSimulator {
    private FastSimulator() {
    }

    static SimulatedServer start() {
        return SimulatedServer.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(5))
                .interTokenDelay(Duration.ofMillis(1)).build());
    }

    /** OPENAI_API_BASE and a key for {@code server}. */
    static Map<String, String> env(SimulatedServer server) {
        return Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k");
    }
}
