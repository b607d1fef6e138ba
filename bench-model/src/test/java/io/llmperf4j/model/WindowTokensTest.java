package io.llmperf4j.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class WindowTokensTest {

    private static final long MS = 1_000_000L;
    private static final Failure CANCELLED = new Failure(FailureKind.CANCELLED, -1, "cancelled");
    private static final Failure TOO_MANY = new Failure(FailureKind.HTTP_STATUS, 429, "429");

    /**
     * A record of {@code events} content events at 100, 110, 120 … ms after its send, "tok " each, the client's count
     * {@code client} (-1: none), usage {@code usage} (null: none), failed with {@code failure} (null: succeeded); it
     * ends at 500 ms.
     */
    private static RequestRecord record(int events, int client, Integer usage, Failure failure) {
        long[] nanos = new long[events];
        int[] chars = new int[events];
        for (int i = 0; i < events; i++) {
            nanos[i] = 100 * MS + i * 10 * MS;
            chars[i] = 4;
        }
        return new RequestRecord(0, "r", null, 0, events == 0 ? RequestRecord.NEVER : nanos[0],
                events == 0 ? RequestRecord.NEVER : nanos[events - 1], 500 * MS, events + 2, nanos,
                "tok ".repeat(events), 10, 100, client, 10, usage, failure == null ? "length" : null, failure, chars,
                null, RequestRecord.NEVER, RequestRecord.NEVER, null);
    }

    @Test
    void aSuccessCountsItsUsageWhereItsEventsArrived() {
        RequestRecord ok = record(4, 5, 8, null);
        WindowTokens rule = WindowTokens.of(List.of(ok), OutputTokenPolicy.DEFAULT);
        assertEquals(8, rule.between(ok, 0, 0, 1_000 * MS), 1e-12);
        assertEquals(4, rule.between(ok, 0, 100 * MS, 110 * MS), 1e-12, "both ends included: 2 events of 2 tokens");
        assertEquals(2, rule.between(ok, 1_000 * MS, 1_120 * MS, 1_125 * MS), 1e-12, "on the send's clock");
    }

    @Test
    void aRequestCutWithoutUsageCountsTheServersTokensPerEventWhenUsageIsPreferred() {
        RequestRecord ok = record(4, 5, 8, null);     // 2 server tokens per event
        RequestRecord cut = record(3, 4, null, CANCELLED); // the client counts 3 (+ BOS) of its text
        List<RequestRecord> all = List.of(ok, cut);
        assertEquals(6, WindowTokens.of(all, OutputTokenPolicy.DEFAULT).between(cut, 0, 0, 1_000 * MS), 1e-12);
        assertEquals(3, WindowTokens.of(all, new OutputTokenPolicy(1, false)).between(cut, 0, 0, 1_000 * MS), 1e-12,
                "the client's count preferred: its own 3");
        RequestRecord unknown = record(3, -1, null, CANCELLED);
        assertEquals(3, WindowTokens.of(List.of(unknown), OutputTokenPolicy.DEFAULT)
                .between(unknown, 0, 0, 1_000 * MS), 1e-12, "no rate and no count: one token per event");
        assertEquals(6, WindowTokens.of(all, OutputTokenPolicy.DEFAULT::outputTokensOrZero,
                r -> EventTokenCounts.NONE, true).between(cut, 0, 0, 1_000 * MS), 1e-12, "in server units");
        assertEquals(3, WindowTokens.evenly(OutputTokenPolicy.DEFAULT::outputTokensOrZero)
                .between(cut, 0, 0, 1_000 * MS), 1e-12, "a count of no known source: its own");
    }

    @Test
    void withoutContentEventsASuccessOrAUsageCountsAtTheEndAndAFailureWithNeitherNothing() {
        RequestRecord whole = record(0, 11, 10, null);
        WindowTokens rule = WindowTokens.of(List.of(whole), OutputTokenPolicy.DEFAULT);
        assertEquals(10, rule.between(whole, 0, 500 * MS, 500 * MS), 1e-12, "an answer not streamed, at its end");
        assertEquals(0, rule.between(whole, 0, 0, 499 * MS), 1e-12);
        RequestRecord refused = record(0, 1, null, TOO_MANY); // an empty text: the client's BOS alone
        assertEquals(0, WindowTokens.evenly(r -> Math.max(0, r.outputTokens())).between(refused, 0, 0, 1_000 * MS),
                1e-12, "a 429 delivered nothing, whatever the count says");
        RequestRecord reported = record(0, -1, 7, TOO_MANY);
        assertEquals(7, WindowTokens.of(List.of(reported), OutputTokenPolicy.DEFAULT)
                .between(reported, 0, 0, 1_000 * MS), 1e-12, "the server's usage counted them");
    }
}
