package io.llmperf4j.run;

import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopRunner;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.engine.overhead.ClientOverheadMonitor;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.metrics.RunWarnings;
import io.llmperf4j.report.metrics.WarningCode;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CLIENT_BOTTLENECK judges the measured window, not the warmup: real closed-loop runs against the simulator with a
 * warmup of {@value #WARMUP} requests, one at a time, whose client's only event loop is kept spinning (turns of at
 * least 200 ms, twice the lag threshold) during one phase. Spinning through the warmup only (it stops as the
 * second-to-last warmup request is sent, so the late probes have run a whole request before the window opens) raises
 * nothing, though a monitor watching the whole run saw the lag; spinning from the first measured send on raises it.
 * The simulator's TTFT of 100 ms and ITL of 20 ms keep the machine's own noise below "material" (10 ms).
 */
class ClientBottleneckMeasuredWindowTest {
    private static final LlmApi CHAT = ApiRegistry.get("openai").adapter(true, null);
    private static final int WARMUP = 10;
    private static final int MEASURED = 10;
    private static SimulatedServer server;

    @BeforeAll
    static void start() {
        server = SimulatedServer.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(100))
                .interTokenDelay(Duration.ofMillis(20)).build());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void aWarmupThatLaggedDoesNotSpeakForACleanWindow() {
        try (NettyLlmClient netty = client()) {
            Spinner spinner = new Spinner(netty, turnNanos(netty));
            // the test's own monitor watches the whole run, warmup included, as the run's monitor used to
            ClientOverheadMonitor whole = ClientOverheadMonitor.start(netty.ioEventLoops());
            spinner.start();
            ClosedLoopResult result = run(new PhaseClient(netty, sent -> {
                if (sent == WARMUP - 1) spinner.stop(); // the last warmup request ends well after the last turn
            }));
            spinner.stop();
            ClientOverhead wholeRun = whole.stop();
            ClientOverhead measured = result.clientOverhead();
            assertTrue(wholeRun.lagMaxNanos() > RunWarnings.clientLagThresholdNanos(wholeRun),
                    "the warmup lagged: " + wholeRun);
            assertTrue(measured.lagSamples() < wholeRun.lagSamples(), "the warmup's probes are left out: " + measured
                    + " vs " + wholeRun);
            assertTrue(measured.lagMaxNanos() < wholeRun.lagMaxNanos(), measured + " vs " + wholeRun);
            RunMetrics metrics = metrics(result);
            // judged on the window's own probes: clean here unless the machine itself lagged in the window (a
            // loaded machine did once), and either way never on the warmup's
            assertEquals(RunWarnings.clientBottleneck(measured, metrics).isPresent(),
                    metrics.hasWarning(WarningCode.CLIENT_BOTTLENECK), measured::toString);
            assertTrue(RunWarnings.clientBottleneck(wholeRun, metrics).isPresent(),
                    "judged with the warmup's probes, the same run would have warned: " + wholeRun);
        }
    }

    @Test
    void aWindowThatLagsStillRaisesIt() {
        try (NettyLlmClient netty = client()) {
            Spinner spinner = new Spinner(netty, turnNanos(netty));
            ClosedLoopResult result;
            try {
                result = run(new PhaseClient(netty, sent -> {
                    if (sent == WARMUP + 1) spinner.start(); // from the first measured send on
                }));
            } finally {
                spinner.stop();
            }
            ClientOverhead measured = result.clientOverhead();
            assertTrue(measured.lagP99Nanos() > RunWarnings.clientLagThresholdNanos(measured), measured::toString);
            RunMetrics metrics = metrics(result);
            assertTrue(metrics.hasWarning(WarningCode.CLIENT_BOTTLENECK), measured::toString);
        }
    }

    /** Twice the lag threshold (from the process's idle baseline), at least 200 ms. */
    private static long turnNanos(NettyLlmClient client) {
        ClientOverhead idle = ClientOverheadMonitor.start(client.ioEventLoops()).stop();
        return Math.max(2 * RunWarnings.clientLagThresholdNanos(idle), 200_000_000L);
    }

    private static ClosedLoopResult run(LlmClient client) {
        List<RequestSpec> specs = new ArrayList<>();
        for (int i = 0; i < MEASURED; i++) specs.add(new RequestSpec(i, "prompt " + i, 5, 4));
        ClosedLoopResult result = new ClosedLoopRunner(client, text -> 1).run(specs, new ClosedLoopSettings(1,
                OptionalInt.of(MEASURED), Duration.ofSeconds(120), Warmup.requests(WARMUP),
                ClosedLoopSettings.PromptOrder.SEND_ORDER));
        assertEquals(MEASURED, result.records().stream().filter(r -> r.succeeded()).count());
        assertEquals(WARMUP, result.warmupRecords().size());
        return result;
    }

    private static RunMetrics metrics(ClosedLoopResult result) {
        BenchmarkRun run = result.toBenchmarkRun(TestRunSettings.llmperfRun(server.baseUrl())
                .meanInputTokens(5)
                .meanOutputTokens(4)
                .numConcurrentRequests(1)
                .timeoutSeconds(120)
                .maxNumCompletedRequests(MEASURED)
                .build());
        return RunMetrics.of(run, MetricsConfig.DEFAULT.withServerInProcess(true));
    }

    private static NettyLlmClient client() {
        return new NettyLlmClient(ClientConfig.builder(CHAT.endpoint(server.baseUrl()), "m").maxConnections(1)
                .ioThreads(1).build(), CHAT);
    }

    /** Keeps the client's only event loop busy in turns, leaving it between turns only for its I/O and timers. */
    private static final class Spinner {
        private final EventExecutor loop;
        private final long turnNanos;
        private final AtomicBoolean spinning = new AtomicBoolean();
        private final Runnable turn;

        Spinner(NettyLlmClient client, long turnNanos) {
            this.loop = client.ioEventLoops().next();
            this.turnNanos = turnNanos;
            this.turn = new Runnable() {
                @Override
                public void run() {
                    if (!spinning.get()) return;
                    long end = System.nanoTime() + Spinner.this.turnNanos;
                    while (System.nanoTime() < end) Thread.onSpinWait();
                    loop.schedule(this, 1, TimeUnit.MICROSECONDS);
                }
            };
        }

        void start() {
            if (spinning.compareAndSet(false, true)) loop.execute(turn);
        }

        void stop() {
            spinning.set(false);
        }
    }

    /** The real client, telling the test each send's number (1 = the first) before it goes out. */
    private record PhaseClient(NettyLlmClient client, java.util.function.IntConsumer onSend, AtomicInteger sent)
            implements LlmClient {
        PhaseClient(NettyLlmClient client, java.util.function.IntConsumer onSend) {
            this(client, onSend, new AtomicInteger());
        }

        @Override
        public RequestHandle send(RequestSpec spec) {
            onSend.accept(sent.incrementAndGet());
            return client.send(spec);
        }

        @Override
        public long[] preconnect(int connections) {
            return client.preconnect(connections);
        }

        @Override
        public EventExecutorGroup ioEventLoops() {
            return client.ioEventLoops();
        }

        @Override
        public void close() {
        }
    }
}
