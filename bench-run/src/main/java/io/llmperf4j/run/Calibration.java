package io.llmperf4j.run;

import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopRunner;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.Percentiles;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.server.RequestTiming;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import io.netty.util.concurrent.EventExecutorGroup;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

/**
 * The client's own error floor: the embedded simulator runs in this process with known timing and records when it
 * began sending each SSE event ({@link RequestTiming#chunkSentNanos()}); the real client measures the same
 * responses over a loopback socket. Both clocks are this JVM's {@link System#nanoTime()}, so per request:
 * <ul>
 *   <li>TTFT error = the client's first-content arrival (its start + TTFT) − the server's send of that event;</li>
 *   <li>inter-token error = |client gap between consecutive content events − server gap between their sends|.</li>
 * </ul>
 * What remains is loopback, kernel and client time: the smallest error any measurement with this client on this
 * machine can have. Each concurrency level runs a closed loop with its own client, after a warmup at the same load
 * (excluded): without it the JIT compiles the hot path during the measured requests, and on a small machine its
 * threads take the cores the client needs. The warmup goes on until the JIT compilers have settled (at most
 * {@link #SETTLE_LIMIT_FACTOR} times the warmup's duration), then for the warmup's duration.
 */
public final class Calibration {

    /** What to run: concurrency levels and the simulator's timing. */
    public record Settings(List<Integer> concurrencies, Duration ttft, Duration interToken, int outputTokens,
                    int requests, Duration warmup) {
        /** Measured requests at {@code concurrency}: the given count, or 4 per stream and at least 100. */
        public int requestsAt(int concurrency) {
            return requests > 0 ? requests : Math.max(100, 4 * concurrency);
        }

        /**
         * The most measured requests in flight at once at {@code concurrency}: the closed loop sends no more than
         * the level's requests, so a {@code requests} count below the concurrency is what the level reaches.
         */
        public int inFlightAt(int concurrency) {
            return Math.min(concurrency, requestsAt(concurrency));
        }
    }

    /**
     * One error distribution, in nanoseconds: exact values, with the one percentile definition of the tool's own
     * figures ({@link Percentiles}), so a p99 of 20 samples lies between the 19th and the 20th, not on the max.
     */
    public record ErrorStats(long count, long p50Nanos, long p99Nanos, long maxNanos) {
        static ErrorStats of(long[] values, int count) {
            if (count == 0) return new ErrorStats(0, 0, 0, 0);
            double[] sorted = new double[count];
            for (int i = 0; i < count; i++) sorted[i] = values[i];
            Arrays.sort(sorted);
            return new ErrorStats(count, Math.round(Percentiles.ofSorted(sorted, 50)),
                    Math.round(Percentiles.ofSorted(sorted, 99)), Math.round(sorted[count - 1]));
        }
    }

    /**
     * The floor at one concurrency.
     *
     * @param concurrency the streams asked for
     * @param unmatched   successful requests whose server timing was missing or whose events did not pair up
     * @param maxInFlight the most measured requests in flight at once ({@link Settings#inFlightAt}): below
     *                    {@code concurrency} when the level had fewer requests than streams
     */
    public record Level(int concurrency, int requests, int succeeded, int unmatched, ErrorStats ttftError,
                 ErrorStats interTokenError, ClientOverhead overhead, String transport, int maxInFlight) {
    }

    private static final long HIGHEST_NANOS = Duration.ofMinutes(10).toNanos();
    /**
     * Settling the compilers takes at most this many times the warmup's duration. The timed warmup alone left a fresh
     * JVM's C2 queue full at 256 streams on 2 cores (the simulator and the client both compiling, 2,700 requests a
     * second): the level measured its own compilation, TTFT error p50 12-120 ms against 0.07 once compiled.
     */
    public static final int SETTLE_LIMIT_FACTOR = 4;
    /** How long to wait for the server's timing of responses the client has already recorded. */
    private static final Duration TIMING_GRACE = Duration.ofSeconds(2);

    private Calibration() {
    }

    /**
     * Runs every level in order; {@code onLevelStart} hears each concurrency before it runs. {@code serverStarted}
     * runs once the simulator is up, before the first level: the place for the client's warm-up, whose compiled code
     * then has the simulator's classes (Netty's server channels) in its view of the class hierarchy; loaded after it,
     * they threw that code away.
     */
    public static List<Level> run(Settings settings, Runnable serverStarted, IntConsumer onLevelStart) {
        Map<String, RequestTiming> timings = new ConcurrentHashMap<>();
        int most = settings.concurrencies().stream().mapToInt(Integer::intValue).max().orElse(1);
        SimulatorConfig config = SimulatorConfig.builder()
                .host("127.0.0.1")
                .port(0)
                .timeToFirstToken(settings.ttft())
                .interTokenDelay(settings.interToken())
                .tokensPerChunk(1)
                .maxConcurrentSequences(most) // no queueing: the server's own timing stays known
                .timingListener(t -> timings.put(t.requestId(), t))
                .build();
        try (SimulatedServer server = SimulatedServer.start(config)) {
            serverStarted.run();
            return settings.concurrencies().stream().map(c -> {
                onLevelStart.accept(c);
                timings.clear();
                return level(server, settings, c, timings);
            }).toList();
        }
    }

    private static Level level(SimulatedServer server, Settings settings, int concurrency,
                               Map<String, RequestTiming> timings) {
        int measured = settings.requestsAt(concurrency);
        List<RequestSpec> specs = IntStream.range(0, measured)
                .mapToObj(i -> new RequestSpec(i, "calibration prompt " + i, 3, settings.outputTokens())).toList();
        ClientConfig config = ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "calibration")
                .maxConnections(concurrency).build();
        Map<String, Long> starts = new ConcurrentHashMap<>();
        ClosedLoopResult result;
        String transport;
        try (NettyLlmClient client = new NettyLlmClient(config)) {
            transport = client.transportName();
            if (!settings.warmup().isZero()) {
                settleCompilers(client, specs, concurrency, settings.warmup().multipliedBy(SETTLE_LIMIT_FACTOR));
            }
            ClosedLoopSettings loop = new ClosedLoopSettings(concurrency, Duration.ofMinutes(10))
                    .withMaxCompleted(measured)
                    .withWarmup(settings.warmup().isZero() ? Warmup.NONE : Warmup.duration(settings.warmup()))
                    .withPromptOrder(ClosedLoopSettings.PromptOrder.SEND_ORDER);
            result = new ClosedLoopRunner(new StartRecording(client, starts), text -> -1).run(specs, loop);
        }
        awaitTimings(result.records(), timings);
        long[] ttft = new long[result.records().size()];
        int ttftCount = 0;
        long[] interToken = new long[64];
        int interTokenCount = 0;
        int succeeded = 0;
        int unmatched = 0;
        for (RequestRecord r : result.records()) {
            if (!r.succeeded()) continue;
            succeeded++;
            RequestTiming timing = r.serverResponseId() == null ? null : timings.get(r.serverResponseId());
            Long start = starts.get(r.clientRequestId());
            long[] arrived = r.contentEventNanos();
            if (timing == null || start == null || start == RequestRecord.NEVER
                    || timing.chunkSentNanos().length != arrived.length || arrived.length == 0) {
                unmatched++;
                continue;
            }
            long[] sent = timing.chunkSentNanos();
            ttft[ttftCount++] = clamp(start + arrived[0] - sent[0]);
            if (interTokenCount + arrived.length > interToken.length) {
                interToken = Arrays.copyOf(interToken,
                        Math.max(2 * interToken.length, interTokenCount + arrived.length));
            }
            for (int k = 1; k < arrived.length; k++) {
                long gapError = (arrived[k] - arrived[k - 1]) - (sent[k] - sent[k - 1]);
                interToken[interTokenCount++] = clamp(Math.abs(gapError));
            }
        }
        return new Level(concurrency, result.records().size(), succeeded, unmatched, ErrorStats.of(ttft, ttftCount),
                ErrorStats.of(interToken, interTokenCount), result.clientOverhead(), transport,
                settings.inFlightAt(concurrency));
    }

    /**
     * Rounds of the level's own closed loop (results dropped) until a span of them had the JIT compilers settled
     * ({@link CompilerSettling}), or {@code limit} has passed.
     */
    private static void settleCompilers(LlmClient client, List<RequestSpec> specs, int concurrency, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        ClosedLoopSettings round = new ClosedLoopSettings(concurrency, limit.plus(TIMING_GRACE))
                .withMaxCompleted(Math.min(specs.size(), 2 * concurrency)) // two waves: short at any concurrency
                .withPromptOrder(ClosedLoopSettings.PromptOrder.SEND_ORDER);
        CompilerSettling compilers = new CompilerSettling();
        while (System.nanoTime() - deadline < 0) {
            new ClosedLoopRunner(client, text -> -1).run(specs, round);
            if (compilers.look() == CompilerSettling.Verdict.SETTLED) return;
        }
    }

    /**
     * The server reports a response just after its last flush, so the client may have its record a moment before the
     * server's timing of it arrives: wait a little for every successful response's timing.
     */
    private static void awaitTimings(List<RequestRecord> records, Map<String, RequestTiming> timings) {
        long deadline = System.nanoTime() + TIMING_GRACE.toNanos();
        for (RequestRecord r : records) {
            if (!r.succeeded() || r.serverResponseId() == null) continue;
            while (!timings.containsKey(r.serverResponseId()) && System.nanoTime() - deadline < 0) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static long clamp(long nanos) {
        return Math.min(HIGHEST_NANOS, Math.max(0, nanos));
    }

    /** Remembers each request's start on the client's clock, to set against the server's send times. */
    private record StartRecording(LlmClient client, Map<String, Long> starts) implements LlmClient {
        @Override
        public RequestHandle send(RequestSpec spec) {
            RequestHandle handle = client.send(spec);
            starts.put(handle.clientRequestId(), handle.startNanos());
            return handle;
        }

        @Override
        public long[] preconnect(int connections) {
            return client.preconnect(connections); // the wrapped client's connections, opened before the clock
        }

        @Override
        public EventExecutorGroup ioEventLoops() {
            return client.ioEventLoops();
        }

        @Override
        public void close() {
            client.close();
        }
    }
}
