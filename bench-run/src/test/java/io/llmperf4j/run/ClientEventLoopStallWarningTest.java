package io.llmperf4j.run;

import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopRunner;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.engine.overhead.ClientOverheadMonitor;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.report.metrics.RunWarning;
import io.llmperf4j.report.metrics.RunWarnings;
import io.llmperf4j.report.metrics.WarningCode;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The QA case behind CLIENT_BOTTLENECK's second sentence: a client that is not busy but whose event loop is kept from
 * running (on a loaded machine, by other processes) stamps tokens late, and the run must say so. Here the client's
 * only event loop is put to sleep in turns of twice the lag threshold (the test's hook: a task on the loop), so its
 * probes are late by up to twice the threshold by construction, whatever the machine's load (load only adds lag),
 * while its thread uses next to no CPU.
 */
class ClientEventLoopStallWarningTest {
    private static final LlmApi CHAT = ApiRegistry.get("openai").adapter(true, null);

    @Test
    void aStalledEventLoopRaisesClientBottleneckWithItsLagFigures() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build());
             NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(CHAT.endpoint(server.baseUrl()), "m")
                     .maxConnections(2).ioThreads(1).build(), CHAT)) {
            // the process's idle baseline is taken by its first monitor: take it before the loop stalls
            long threshold = RunWarnings.clientLagThresholdNanos(ClientOverheadMonitor.start(client.ioEventLoops())
                    .stop());
            long stallMillis = Math.max(TimeUnit.NANOSECONDS.toMillis(2 * threshold), 50);
            AtomicBoolean stalling = new AtomicBoolean(true);
            EventExecutor loop = client.ioEventLoops().next();
            Runnable[] stall = new Runnable[1];
            stall[0] = () -> {
                try {
                    Thread.sleep(stallMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                if (stalling.get()) loop.schedule(stall[0], 1, TimeUnit.MICROSECONDS);
            };
            loop.execute(stall[0]);
            ClosedLoopResult result;
            try {
                List<RequestSpec> specs = new ArrayList<>();
                for (int i = 0; i < 6; i++) specs.add(new RequestSpec(i, "prompt " + i, 5, 4));
                result = new ClosedLoopRunner(client, text -> 1).run(specs, new ClosedLoopSettings(2,
                        OptionalInt.of(6), Duration.ofSeconds(120), Warmup.NONE,
                        ClosedLoopSettings.PromptOrder.SEND_ORDER));
            } finally {
                stalling.set(false);
            }
            assertEquals(6, result.records().stream().filter(r -> r.succeeded()).count());
            ClientOverhead o = result.clientOverhead();
            assertTrue(o.lagP99Nanos() > RunWarnings.clientLagThresholdNanos(o), "the stall delayed the probes: " + o);

            Optional<RunWarning> warning = RunWarnings.clientBottleneck(o);
            assertTrue(warning.isPresent(), "lag p99 above the threshold warns, busy or not: " + o);
            assertEquals(WarningCode.CLIENT_BOTTLENECK, warning.get().code());
            String message = warning.get().message();
            assertTrue(message.contains(String.format(Locale.ROOT, "(lag p99 %.2f ms, max %.2f ms, above the %.2f ms "
                    + "threshold: ", o.lagP99Nanos() / 1e6, o.lagMaxNanos() / 1e6,
                    RunWarnings.clientLagThresholdNanos(o) / 1e6)), message);
            // a sleeping loop is not busy: the sentence blames the machine's other work, unless the JVM's own start-up
            // (JIT) kept the process over half the cores for a run of 2 s or more, which the rule counts as busy
            boolean busy = o.ioBusyShareMax() > RunWarnings.CLIENT_BUSY_SHARE
                    || (o.wallNanos() >= RunWarnings.CLIENT_BUSY_MIN_WALL_NANOS
                    && o.processCpuShare() > RunWarnings.CLIENT_BUSY_SHARE);
            assertTrue(o.ioBusyShareMax() <= RunWarnings.CLIENT_BUSY_SHARE, "the sleeping loop used little CPU: " + o);
            if (!busy) {
                assertTrue(message.startsWith("The client distorted this run's latencies: its event loops ran late "),
                        message);
                assertTrue(message.contains(" though it was not busy (") && message.contains("TTFT and ITL"), message);
            }
            assertTrue(message.endsWith("'llmperf4j calibrate'.") && !message.contains(". "), "one sentence: " + message);
        }
    }
}
