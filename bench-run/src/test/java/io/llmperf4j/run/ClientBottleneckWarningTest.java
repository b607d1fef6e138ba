package io.llmperf4j.run;

import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopRunner;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.overhead.ClientOverheadMonitor;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.report.metrics.Metric;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.metrics.RunWarning;
import io.llmperf4j.report.metrics.RunWarnings;
import io.llmperf4j.report.metrics.WarningCode;
import io.llmperf4j.server.SimulatedServer;
import io.netty.util.concurrent.EventExecutor;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The client-bottleneck warning on real runs against the simulator: a light run raises none unless its loops ran later
 * than the machine's own noise allows (the idle baseline measured before the run sets the threshold) by a material
 * part of its TTFT or ITL; a client whose only event loop is kept spinning in turns of twice that threshold (at least
 * 50 ms, most of the simulator's 5 ms TTFT) raises it: by construction its probes are then late by up to a turn and
 * its thread always wants a CPU (the test is skipped, saying so, when a crowded machine gives that thread a CPU less
 * than half the time: the client is then not busy by the rule's measure, CPU time).
 */
class ClientBottleneckWarningTest {
    private static final LlmApi CHAT = ApiRegistry.get("openai").adapter(true, null);
    private static SimulatedServer server;

    @BeforeAll
    static void start() {
        server = SimulatedServer.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(5))
                .interTokenDelay(Duration.ofMillis(1)).build());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static List<RequestSpec> specs(int n) {
        List<RequestSpec> specs = new ArrayList<>();
        for (int i = 0; i < n; i++) specs.add(new RequestSpec(i, "prompt " + i, 5, 4));
        return specs;
    }

    private static ClosedLoopResult run(NettyLlmClient client, int requests) {
        return new ClosedLoopRunner(client, text -> 1).run(specs(requests), new ClosedLoopSettings(2,
                OptionalInt.of(requests), Duration.ofSeconds(120), Warmup.NONE,
                ClosedLoopSettings.PromptOrder.SEND_ORDER));
    }

    /** The run's metrics, as a run in this process (the simulator's) is judged. */
    private static RunMetrics metrics(ClosedLoopResult result, int requests) {
        BenchmarkRun run = result.toBenchmarkRun(TestRunSettings.llmperfRun(server.baseUrl())
                .meanInputTokens(5)
                .meanOutputTokens(4)
                .numConcurrentRequests(2)
                .timeoutSeconds(120)
                .maxNumCompletedRequests(requests)
                .build());
        return RunMetrics.of(run, MetricsConfig.DEFAULT.withServerInProcess(true));
    }

    private static NettyLlmClient client() {
        return new NettyLlmClient(ClientConfig.builder(CHAT.endpoint(server.baseUrl()), "m").maxConnections(2)
                .ioThreads(1).build(), CHAT);
    }

    @Test
    void aLightRunRaisesNoWarningAndKeepsTheIdleBaseline() {
        try (NettyLlmClient client = client()) {
            ClosedLoopResult result = run(client, 20);
            assertEquals(20, result.records().stream().filter(r -> r.succeeded()).count());
            ClientOverhead o = result.clientOverhead();
            assertTrue(o.hasIdleBaseline(), "the idle loops were probed before the run: " + o);
            assertEquals(Math.max(RunWarnings.CLIENT_LAG_P99_NANOS,
                    Math.round(RunWarnings.CLIENT_LAG_BASELINE_FACTOR * o.idleLagP99Nanos())),
                    RunWarnings.clientLagThresholdNanos(o));
            // a light client warns only when its loops ran later than 4x the machine's idle noise, by more than a
            // tenth of TTFT p50 or half of ITL p50: a machine whose load rose mid-run may do that, and then the
            // warning must say so (ClientEventLoopStallWarningTest)
            RunMetrics metrics = metrics(result, 20);
            long lag = o.lagP99Nanos();
            double ttft = metrics.stats(Metric.TTFT).p50();
            double itl = metrics.stats(Metric.ITL).p50(); // 0 after a stall and its catch-up: then not compared
            boolean material = lag > RunWarnings.CLIENT_LAG_TTFT_SHARE * ttft
                    || (itl > 0 && lag > RunWarnings.CLIENT_LAG_ITL_SHARE * itl);
            assertEquals(lag > RunWarnings.clientLagThresholdNanos(o) && material,
                    metrics.hasWarning(WarningCode.CLIENT_BOTTLENECK), o::toString);
            assertEquals(metrics.hasWarning(WarningCode.CLIENT_BOTTLENECK),
                    RunWarnings.clientBottleneck(o, metrics).isPresent(), o::toString);
        }
    }

    @Test
    void aClientWhoseEventLoopIsKeptBusyRaisesItInOneSentence() throws Exception {
        try (NettyLlmClient client = client()) {
            // the process's idle baseline is measured by the first monitor; take it now, before the loop is busy
            ClientOverhead idle = ClientOverheadMonitor.start(client.ioEventLoops()).stop();
            long threshold = RunWarnings.clientLagThresholdNanos(idle);
            // the test's hook: the client's only event loop spins in turns of twice the threshold, leaving it between
            // turns only for its I/O, so nearly every probe is late by up to 2x the threshold and the thread is
            // always runnable
            long turnNanos = Math.max(2 * threshold, 50_000_000L);
            AtomicBoolean spinning = new AtomicBoolean(true);
            EventExecutor loop = client.ioEventLoops().next();
            Runnable[] spin = new Runnable[1];
            spin[0] = () -> {
                long end = System.nanoTime() + turnNanos;
                while (System.nanoTime() < end) Thread.onSpinWait();
                if (spinning.get()) loop.schedule(spin[0], 1, TimeUnit.MICROSECONDS);
            };
            loop.execute(spin[0]);
            ClosedLoopResult result;
            try {
                result = run(client, 6);
            } finally {
                spinning.set(false);
            }
            assertEquals(6, result.records().stream().filter(r -> r.succeeded()).count());
            ClientOverhead o = result.clientOverhead();
            assertTrue(o.lagP99Nanos() > threshold, "the spin delayed the probes: " + o);
            Optional<RunWarning> warning = RunWarnings.clientBottleneck(o, metrics(result, 6));
            assertTrue(warning.isPresent(), "loops late by most of a TTFT warn, busy or not: " + o);
            // the spinning thread wants a CPU all the time; whether it got one for half the run is the machine's call
            // (a crowded machine's scheduler may give it far less): only then does the sentence blame the client's work
            assumeTrue(o.ioBusyShareMax() > RunWarnings.CLIENT_BUSY_SHARE,
                    "this machine gave the spinning event loop a CPU only " + Math.round(100 * o.ioBusyShareMax())
                            + " % of the time (it wanted one " + Math.round(100 * o.ioRunnableShareMax()) + " %)");
            String message = warning.get().message();
            assertTrue(message.startsWith("The client may have limited this run: its event loops ran late (lag p99 "),
                    message);
            assertTrue(message.contains("x its idle p99 of "), message);
            assertTrue(message.contains(" of TTFT p50 (") && message.contains("(process CPU ")
                    && message.contains(" cores, the embedded simulated server's included, "), message);
            assertTrue(message.contains("benchmark a server outside this process (OPENAI_API_BASE)"), message);
            assertTrue(message.endsWith("'llmperf4j calibrate'.") && !message.contains(". "), "one sentence: " + message);
        }
    }
}
