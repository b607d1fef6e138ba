package io.llmperf4j.run;

import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.model.ClientTokenCount;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Warms the client's own code (Netty, SSE decoding, event parsing, and the output token counting) before the
 * measured run, against a private in-process simulator, never the endpoint under test, then lets the JIT compilers
 * finish what that queued. Without it the first wave of requests of a fresh JVM carries 100 ms or more of JIT
 * compilation in its TTFT, and the first seconds of the run share the CPU with the compilers: the tool measuring
 * itself. Once per JVM: a sweep's later levels, a second model or a second run of the Java API find the code
 * compiled already, and warming it again would only cost them seconds.
 */
public final class ClientWarmup {
    private static final int REQUESTS = 800;
    private static final int IN_FLIGHT = 32;
    private static final int TOKENS = 128;
    private static final long TIME_LIMIT_MILLIS = 5_000;
    /** The compilers count as done when their total time has not grown for this long; never waited past the bound. */
    private static final long COMPILERS_QUIET_MILLIS = 250;
    private static final long COMPILERS_WAIT_BOUND_MILLIS = 4_000;
    private static final AtomicBoolean WARMED = new AtomicBoolean();

    private ClientWarmup() {
    }

    public static void run() {
        run(null);
    }

    /** The same, also counting each warm-up answer's tokens with {@code counter} (when not null), as the run will. */
    public static void run(TokenCounter counter) {
        if (!WARMED.compareAndSet(false, true)) return;
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
                    RequestRecord record = handle.completion().get(TIME_LIMIT_MILLIS, TimeUnit.MILLISECONDS);
                    if (counter != null) ClientTokenCount.count(record, counter);
                }
            }
        } catch (Exception e) {
            // a warm-up that cannot run only costs accuracy on the first requests; the real run reports its own errors
        }
        awaitQuietCompilers();
    }

    /** Waits until the JIT compilers have been idle for a moment (bounded), so their work is not inside the run. */
    private static void awaitQuietCompilers() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) return;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(COMPILERS_WAIT_BOUND_MILLIS);
        long last = jit.getTotalCompilationTime();
        long quietSince = System.nanoTime();
        try {
            while (System.nanoTime() < deadline) {
                Thread.sleep(25);
                long now = jit.getTotalCompilationTime();
                if (now != last) {
                    last = now;
                    quietSince = System.nanoTime();
                } else if (System.nanoTime() - quietSince >= TimeUnit.MILLISECONDS.toNanos(COMPILERS_QUIET_MILLIS)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
