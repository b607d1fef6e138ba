package io.llmperf4j.run;

import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Warms the client's own code (Netty, SSE decoding, event parsing) before the measured run, against a private
 * in-process simulator, never the endpoint under test. Without it the first wave of requests of a fresh JVM
 * carries 100 ms or more of JIT compilation in its TTFT, which is the tool measuring itself.
 */
public final class ClientWarmup {
    private static final int REQUESTS = 400;
    private static final int IN_FLIGHT = 8;
    private static final int TOKENS = 32;
    private static final long TIME_LIMIT_MILLIS = 5_000;

    private ClientWarmup() {
    }

    public static void run() {
        SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ZERO)
                .interTokenDelay(Duration.ZERO).build();
        long deadline = System.currentTimeMillis() + TIME_LIMIT_MILLIS;
        try (SimulatedServer server = SimulatedServer.start(config);
             NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(
                     URI.create(server.baseUrl() + "/chat/completions"), "warmup").maxConnections(IN_FLIGHT).build())) {
            RequestSpec spec = new RequestSpec(0, "warm up the client", 0, TOKENS);
            for (int sent = 0; sent < REQUESTS && System.currentTimeMillis() < deadline; sent += IN_FLIGHT) {
                List<RequestHandle> wave = new ArrayList<>();
                for (int i = 0; i < IN_FLIGHT; i++) {
                    wave.add(client.send(spec));
                }
                for (RequestHandle handle : wave) {
                    handle.completion().get(TIME_LIMIT_MILLIS, TimeUnit.MILLISECONDS);
                }
            }
        } catch (Exception e) {
            // a warm-up that cannot run only costs accuracy on the first requests; the real run reports its own errors
        }
    }
}
