package io.llmperf4j.engine.bench;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;

import java.time.Duration;

/**
 * The simulator in a JVM of its own, so the client's memory and CPU can be measured apart from it. Prints
 * {@code port N} once listening, and stops when its standard input closes (the parent ended). Arguments:
 * {@code ioThreads=N} (1), {@code ttftMs} (0), {@code itlMs} (0), {@code maxSequences} (4096).
 */
public final class SimulatorProcess {

    private SimulatorProcess() {
    }

    public static void main(String[] args) throws Exception {
        java.util.Map<String, String> a = Args.parse(args);
        SimulatorConfig config = SimulatorConfig.builder()
                .host("127.0.0.1")
                .port(0)
                .ioThreads(Integer.parseInt(a.getOrDefault("ioThreads", "1")))
                .timeToFirstToken(Duration.ofNanos(Math.round(Double.parseDouble(a.getOrDefault("ttftMs", "0")) * 1e6)))
                .interTokenDelay(Duration.ofNanos(Math.round(Double.parseDouble(a.getOrDefault("itlMs", "0")) * 1e6)))
                .maxConcurrentSequences(Integer.parseInt(a.getOrDefault("maxSequences", "4096")))
                .build();
        try (SimulatedServer server = SimulatedServer.start(config)) {
            System.out.println("port " + server.port());
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the parent closes our stdin
            }
        }
    }
}
