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
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.report.metrics.Metric;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.metrics.RunWarning;
import io.llmperf4j.report.metrics.RunWarnings;
import io.llmperf4j.report.metrics.WarningCode;
import io.llmperf4j.report.summary.RunEnvironment;
import io.llmperf4j.report.summary.SummaryDocument;
import io.llmperf4j.report.summary.SummaryJson;
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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The QA case behind CLIENT_BOTTLENECK's second sentence: a client that is not busy but whose event loop is kept from
 * running (on a loaded machine, by other processes or the simulator sharing its process) stamps tokens late, and the
 * run must say so when that lag is a material part of its latencies. Here the client's only event loop is put to
 * sleep in turns (the test's hook: a task on the loop), so its probes are late by up to a turn by construction,
 * whatever the machine's load (load only adds lag), while its thread uses next to no CPU. The simulator runs in the
 * test's process, so the runs are judged as the embedded server's are.
 */
class ClientEventLoopStallWarningTest {
    private static final LlmApi CHAT = ApiRegistry.get("openai").adapter(true, null);
    private static final MetricsConfig IN_PROCESS = MetricsConfig.DEFAULT.withServerInProcess(true);

    @Test
    void aStalledEventLoopRaisesClientBottleneckWithItsLagFigures() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build());
             NettyLlmClient client = client(server)) {
            // the process's idle baseline is taken by its first monitor: take it before the loop stalls
            long threshold = RunWarnings.clientLagThresholdNanos(ClientOverheadMonitor.start(client.ioEventLoops())
                    .stop());
            long stallMillis = Math.max(TimeUnit.NANOSECONDS.toMillis(2 * threshold), 50);
            BenchmarkRun run = runStalled(client, server, stallMillis, 6);
            assertEquals(6, run.records().stream().filter(r -> r.succeeded()).count());
            ClientOverhead o = run.clientOverhead();
            assertTrue(o.lagP99Nanos() > RunWarnings.clientLagThresholdNanos(o), "the stall delayed the probes: " + o);

            RunMetrics metrics = RunMetrics.of(run, IN_PROCESS);
            Optional<RunWarning> warning = RunWarnings.clientBottleneck(o, metrics);
            assertTrue(warning.isPresent(), "a 50 ms stall is most of a 5 ms TTFT, busy or not: " + o);
            assertTrue(metrics.hasWarning(WarningCode.CLIENT_BOTTLENECK), metrics.warnings().toString());
            assertEquals(WarningCode.CLIENT_BOTTLENECK, warning.get().code());
            assertTrue(likelyBottleneck(run, metrics), "the summary's flag follows the warning");
            String message = warning.get().message();
            assertTrue(message.contains(String.format(Locale.ROOT, "(lag p99 %.2f ms, max %.2f ms, above the %.2f ms "
                    + "threshold: ", o.lagP99Nanos() / 1e6, o.lagMaxNanos() / 1e6,
                    RunWarnings.clientLagThresholdNanos(o) / 1e6)), message);
            // sized against the run's own figures
            assertTrue(message.contains(String.format(Locale.ROOT, "were up to %.2f ms late at p99: %.0f%% of TTFT p50 "
                    + "(%.1f ms)", o.lagP99Nanos() / 1e6, 100.0 * o.lagP99Nanos() / metrics.stats(Metric.TTFT).p50(),
                    metrics.stats(Metric.TTFT).p50() / 1e6)), message);
            // a sleeping loop is not busy: the sentence names what kept it from the CPUs, the simulator first, unless
            // the JVM's own start-up (JIT) kept the process over half the cores for a run of 2 s or more, which the
            // rule counts as busy
            boolean busy = o.ioBusyShareMax() > RunWarnings.CLIENT_BUSY_SHARE
                    || (o.wallNanos() >= RunWarnings.CLIENT_BUSY_MIN_WALL_NANOS
                    && o.processCpuShare() > RunWarnings.CLIENT_BUSY_SHARE);
            assertTrue(o.ioBusyShareMax() <= RunWarnings.CLIENT_BUSY_SHARE, "the sleeping loop used little CPU: " + o);
            if (!busy) {
                assertTrue(message.startsWith("The client's delays are a material part of this run's latencies: its "
                        + "event loops ran late "), message);
                assertTrue(message.contains(" though it was not busy (") && message.contains("TTFT and ITL"), message);
                assertTrue(message.contains("other work kept it from the CPUs (the embedded simulated server, which "
                        + "runs in this process on the same CPUs, "), message);
            }
            assertTrue(message.endsWith("'llmperf4j calibrate'.") && !message.contains(". "), "one sentence: " + message);
        }
    }

    /**
     * The same stall of the client's loop (twice the lag threshold, at least 5 ms, plus the probe period), beside two
     * servers: a small part
     * of a slow server's latencies (TTFT 20 stalls, at least 1 s; gaps 5 stalls, at least 250 ms: the lag, about a
     * stall, stays under a tenth of the one and half the other), no warning; most of a fast one's (5 ms TTFT, 1 ms
     * gaps), the warning. Skipped, saying so, when this machine's own noise lags the loop by a tenth of that TTFT.
     */
    @Test
    void theSameLagWarnsBesideShortLatenciesAndNotBesideLongOnes() throws Exception {
        try (SimulatedServer fast = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1)).build());
             NettyLlmClient fastClient = client(fast)) {
            long threshold = RunWarnings.clientLagThresholdNanos(ClientOverheadMonitor.start(fastClient.ioEventLoops())
                    .stop());
            // over the threshold by construction: stalls back to back delay a probe armed one period ahead by the
            // stall less that period (a probe runs between two stalls), so the period is added (a 1.5 ms idle
            // baseline made the threshold 6 ms, the stall 12 ms and the probes' lag 2 ms: under the threshold)
            long stallMillis = Math.max(TimeUnit.NANOSECONDS.toMillis(2 * threshold), 5)
                    + ClientOverheadMonitor.PROBE_PERIOD_MILLIS;
            long ttftMillis = Math.max(20 * stallMillis, 1_000);
            try (SimulatedServer slow = SimulatedServer.start(SimulatorConfig.builder()
                    .timeToFirstToken(Duration.ofMillis(ttftMillis))
                    .interTokenDelay(Duration.ofMillis(Math.max(5 * stallMillis, 250))).build());
                 NettyLlmClient slowClient = client(slow)) {
                BenchmarkRun slowRun = runStalled(slowClient, slow, stallMillis, 4);
                assertEquals(4, slowRun.records().stream().filter(r -> r.succeeded()).count());
                ClientOverhead o = slowRun.clientOverhead();
                assertTrue(o.lagP99Nanos() > RunWarnings.clientLagThresholdNanos(o), "the stall delayed the probes: "
                        + o);
                assumeTrue(o.lagP99Nanos() <= TimeUnit.MILLISECONDS.toNanos(ttftMillis) / 10, "this machine's noise "
                        + "lagged the loop by " + o.lagP99Nanos() / 1e6 + " ms at p99, not only the stall's "
                        + stallMillis + " ms");
                RunMetrics slowMetrics = RunMetrics.of(slowRun, IN_PROCESS);
                assertFalse(slowMetrics.hasWarning(WarningCode.CLIENT_BOTTLENECK), o + " "
                        + slowMetrics.stats(Metric.TTFT) + " " + slowMetrics.stats(Metric.ITL));
                assertFalse(likelyBottleneck(slowRun, slowMetrics), "the summary's flag follows the warning");
            }

            BenchmarkRun fastRun = runStalled(fastClient, fast, stallMillis, 4);
            ClientOverhead o = fastRun.clientOverhead();
            assertTrue(o.lagP99Nanos() > RunWarnings.clientLagThresholdNanos(o), "the stall delayed the probes: " + o);
            RunMetrics fastMetrics = RunMetrics.of(fastRun, IN_PROCESS);
            assertTrue(fastMetrics.hasWarning(WarningCode.CLIENT_BOTTLENECK), o + " "
                    + fastMetrics.stats(Metric.TTFT) + " " + fastMetrics.stats(Metric.ITL));
            assertTrue(likelyBottleneck(fastRun, fastMetrics), "the summary's flag follows the warning");
        }
    }

    private static NettyLlmClient client(SimulatedServer server) {
        return new NettyLlmClient(ClientConfig.builder(CHAT.endpoint(server.baseUrl()), "m").maxConnections(2)
                .ioThreads(1).build(), CHAT);
    }

    /** A closed loop of {@code requests} 4-token requests, two at a time, while the client's only loop sleeps. */
    private static BenchmarkRun runStalled(NettyLlmClient client, SimulatedServer server, long stallMillis,
                                           int requests) {
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
            for (int i = 0; i < requests; i++) specs.add(new RequestSpec(i, "prompt " + i, 5, 4));
            result = new ClosedLoopRunner(client, text -> 1).run(specs, new ClosedLoopSettings(2,
                    OptionalInt.of(requests), Duration.ofSeconds(120), Warmup.NONE,
                    ClosedLoopSettings.PromptOrder.SEND_ORDER));
        } finally {
            stalling.set(false);
        }
        return result.toBenchmarkRun(TestRunSettings.llmperfRun(server.baseUrl())
                .meanInputTokens(5)
                .meanOutputTokens(4)
                .numConcurrentRequests(2)
                .timeoutSeconds(120)
                .maxNumCompletedRequests(requests)
                .build());
    }

    /** The summary's {@code client_overhead.likely_bottleneck} for {@code run}. */
    private static boolean likelyBottleneck(BenchmarkRun run, RunMetrics metrics) {
        return SummaryJson.parse(SummaryJson.toJson(SummaryDocument.of(run, metrics, "test",
                RunEnvironment.current()))).at("/client_overhead/likely_bottleneck")
                .asBoolean();
    }
}
