package io.llmperf4j.report.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Tokens delivered inside the window: every request's, an event counting where its arrival falls. */
class DeliveredTokensTest {
    private static final long START_MS = 1_000_000L;
    private static final long MS = 1_000_000L;

    /** The settings of a run of {@code requests} requests, {@code concurrency} at once, for {@code timeoutSeconds}. */
    private static BenchmarkSettings settings(int concurrency, int timeoutSeconds, int requests) {
        return BenchmarkSettings.builder()
                .model("m")
                .meanInputTokens(10)
                .stddevInputTokens(0)
                .meanOutputTokens(10)
                .stddevOutputTokens(0)
                .numConcurrentRequests(concurrency)
                .timeoutSeconds(timeoutSeconds)
                .maxNumCompletedRequests(requests)
                .additionalSamplingParams(Map.of())
                .llmApi("openai")
                .metadata(Map.of())
                .endpoint("http://localhost:8000/v1")
                .tokenizer("llama-2 (built in)")
                .promptMode("llmperf")
                .seed(1L)
                .build();
    }

    /** A request sent {@code sendMs} after the window's start with one content event per entry of {@code eventsMs}. */
    private static RequestRecord record(String id, long sendMs, long[] eventsMs, Integer usage, int clientTokens,
                                        Failure failure) {
        long[] events = new long[eventsMs.length];
        for (int i = 0; i < events.length; i++) events[i] = eventsMs[i] * MS;
        long last = events.length == 0 ? -1 : events[events.length - 1];
        return new RequestRecord(0, id, null, (START_MS + sendMs) * 1000, events.length == 0 ? -1 : events[0], last,
                last + MS, events.length, events, "", 10, 100, clientTokens, 10, usage, null, failure);
    }

    @Test
    void successfulAndCancelledRequestsCountWhatArrivedInsideTheWindow() {
        Failure cancelled = new Failure(FailureKind.CANCELLED, -1, "cancelled while in flight");
        List<RequestRecord> records = List.of(
                // 8 tokens by the server's usage, every event inside
                record("ok", 0, new long[] {10, 20, 30, 40}, 8, 5, null),
                // cancelled: no usage; each event counts the server's tokens per event over the successful requests
                // with usage, (8 + 6) / (4 + 3) = 2, not the client's count less its BOS (3): 6, all inside
                record("cut", 500, new long[] {100, 200, 300}, null, 4, cancelled),
                // 6 tokens over 3 events, the last 2 after the window's end (2 s + 2 ms): 2 inside
                record("late", 1500, new long[] {100, 600, 900}, 6, 7, null));
        BenchmarkRun run = new BenchmarkRun(settings(3, 2, 3), records, START_MS,
                START_MS + 2000, 2000 * MS, 3, true);
        DeliveredTokens d = DeliveredTokens.of(run, TokenCounting.DEFAULT);
        assertEquals(8 + 6 + 2, d.tokens(), 1e-12);
        assertEquals(6, d.fromFailed(), 1e-12);
        assertEquals(16 / 2.0, d.tokensPerSecond(), 1e-12);
    }

    /**
     * The window opens at the first measured send while warmup requests still stream: what they deliver after it
     * opens counts (and only then), by the same rule as a measured request's.
     */
    @Test
    void warmupRequestsCountWhatTheyDeliveredAfterTheWindowOpened() {
        Failure cancelled = new Failure(FailureKind.CANCELLED, -1, "cancelled while in flight");
        List<RequestRecord> measured = List.of(record("ok", 0, new long[] {10, 20, 30, 40}, 8, 5, null));
        List<RequestRecord> warmup = List.of(
                // sent 300 ms before the window: 8 tokens over 4 events, the first 2 before it (beyond its 2 ms
                // widening), so 4 inside
                record("w1", -300, new long[] {100, 200, 400, 500}, 8, 9, null),
                // ended before the window opened: nothing
                record("w2", -600, new long[] {100, 200}, 4, 3, null),
                // cancelled at the end while streaming, without usage: 2 of its 3 events inside, each the server's
                // 2 tokens per event (over the measured and warmup requests with usage)
                record("w3", -150, new long[] {100, 200, 300}, null, 4, cancelled));
        BenchmarkRun run = new BenchmarkRun(settings(3, 2, 3), measured,
                START_MS, START_MS + 1000, 1000 * MS, 1, false);
        DeliveredTokens d = DeliveredTokens.of(run, warmup, TokenCounting.DEFAULT);
        assertEquals(8 + 4 + 0 + 4, d.tokens(), 1e-12);
        assertEquals(4, d.fromFailed(), 1e-12);
        assertEquals(16 / 1.0, d.tokensPerSecond(), 1e-12);
        // without the warmup records: the measured request's alone
        assertEquals(8, DeliveredTokens.of(run, TokenCounting.DEFAULT).tokens(), 1e-12);
    }

    /**
     * Without a successful request with usage there is no server unit: a cancelled request counts the client's count
     * of what arrived less its BOS, and with no client count either (--tokenizer server) one token per event.
     */
    @Test
    void withoutTheServersUnitACutRequestCountsTheClientsCountElseOnePerEvent() {
        Failure cancelled = new Failure(FailureKind.CANCELLED, -1, "cancelled while in flight");
        List<RequestRecord> records = List.of(
                record("ok", 0, new long[] {10, 20}, null, 5, null),
                record("cut", 500, new long[] {100, 200, 300}, null, 8, cancelled),
                record("uncounted", 600, new long[] {100, 200}, null, 0, cancelled));
        BenchmarkRun run = new BenchmarkRun(settings(3, 2, 3), records,
                START_MS, START_MS + 2000, 2000 * MS, 3, true);
        DeliveredTokens d = DeliveredTokens.of(run, TokenCounting.DEFAULT);
        assertEquals(4 + 7 + 2, d.tokens(), 1e-12);
        assertEquals(7 + 2, d.fromFailed(), 1e-12);
    }

    /** Even shares add up with float noise: a count of whole tokens stays whole (19, not 19.000000000000004). */
    @Test
    void aRequestCutByTheWindowCountsTheTokensOfItsEventsInside() {
        // 6 tokens by the server's usage over 3 events that carried 4, 1 and 1 by the client's count: the first
        // event, the only one inside the window (2 s + 2 ms), brought 4 of them, not an even share of 2
        List<RequestRecord> records = List.of(record("late", 1500, new long[] {100, 600, 900}, 6, 7, null)
                .withContentEventTokens(new int[] {4, 1, 1}));
        BenchmarkRun run = new BenchmarkRun(settings(1, 2, 1), records,
                START_MS, START_MS + 2000, 2000 * MS, 1, true);
        assertEquals(4.0, DeliveredTokens.of(run, TokenCounting.DEFAULT).tokens(), 1e-12);
    }

    @Test
    void aWholeRequestsTokensSumToAWholeNumber() {
        Failure failed = new Failure(FailureKind.CONNECTION_CLOSED, -1, "closed mid-stream");
        List<RequestRecord> records = List.of(
                record("cut", 0, new long[] {10, 20, 30, 40, 50, 60, 70}, 19, 20, failed));
        BenchmarkRun run = new BenchmarkRun(settings(1, 1, 1), records,
                START_MS, START_MS + 1000, 1000 * MS, 1, true);
        DeliveredTokens d = DeliveredTokens.of(run, TokenCounting.DEFAULT);
        assertEquals(19.0, d.tokens(), 0.0);
        assertEquals(19.0, d.fromFailed(), 0.0);
    }
}
