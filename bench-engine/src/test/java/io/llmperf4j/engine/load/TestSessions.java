package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.testserver.TimedSseServer;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Session workloads and a client for the session runner's socket tests. */
final class TestSessions {
    private TestSessions() {
    }

    /** {@code sessions} sessions of {@code turns} turns ("s0", "s1", ...), {@code thinkMillis} before each later turn. */
    static PacedWorkload workload(int sessions, int turns, long thinkMillis) {
        List<RequestSpec> specs = new ArrayList<>();
        for (int s = 0; s < sessions; s++) {
            for (int t = 0; t < turns; t++) {
                specs.add(new RequestSpec(specs.size(), "u" + s + "." + t, 2, 3,
                        new RequestInputs("sys", List.of(), List.of(), "s" + s, t)));
            }
        }
        return PacedWorkload.sessions(specs, turn -> turn.inputs().turn() == 0 ? 0
                : TimeUnit.MILLISECONDS.toNanos(thinkMillis));
    }

    /** The real client to {@code server}'s chat endpoint, two connections. */
    static NettyLlmClient netty(TimedSseServer server) {
        return new NettyLlmClient(ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "m")
                .maxConnections(2).build());
    }
}
