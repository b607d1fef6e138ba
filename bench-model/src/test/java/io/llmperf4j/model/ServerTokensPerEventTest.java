package io.llmperf4j.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class ServerTokensPerEventTest {

    private static final Failure CANCELLED = new Failure(FailureKind.CANCELLED, -1, "cancelled");

    /**
     * A record of {@code events} content events 10 ms apart, the client's count {@code client} (-1: none), usage
     * {@code usage} (null: none), failed with {@code failure} (null: succeeded), reasoning first when
     * {@code reasoned}.
     */
    private static RequestRecord record(int events, int client, Integer usage, Failure failure, boolean reasoned) {
        long[] nanos = new long[events];
        for (int i = 0; i < events; i++) nanos[i] = 100_000_000L + i * 10_000_000L;
        long last = events == 0 ? RequestRecord.NEVER : nanos[events - 1];
        return new RequestRecord(0, "r", null, 0, events == 0 ? RequestRecord.NEVER : nanos[0], last,
                events == 0 ? 50_000_000L : last + 1, events + 2, nanos, "x", 10, 100, client, 10, usage,
                failure == null ? "length" : null, failure, null, null,
                reasoned ? 50_000_000L : RequestRecord.NEVER, RequestRecord.NEVER, null);
    }

    private static List<Double> arrivals(RequestRecord rec, int n, OptionalDouble rate) {
        List<Double> out = new ArrayList<>();
        ServerTokensPerEvent.forEachArrival(rec, n, EventTokenCounts.NONE, rate, (offset, tokens) -> out.add(tokens));
        return out;
    }

    @Test
    void theRateIsTheSuccessfulRequestsUsagePerContentEventLeavingOutFailuresAndReasoningFirst() {
        OptionalDouble rate = ServerTokensPerEvent.of(List.of(
                record(4, 9, 8, null, false),        // 2 server tokens per event
                record(2, 5, 4, null, false),        // 2 per event
                record(3, -1, 90, null, true),       // reasoning came first: its usage counts tokens no event carried
                record(5, 11, 50, CANCELLED, false), // did not succeed
                record(3, 7, null, null, false)));   // no usage
        assertEquals(2.0, rate.getAsDouble(), 1e-12);
        assertTrue(ServerTokensPerEvent.of(List.of(record(3, 7, null, null, false))).isEmpty());
        assertTrue(ServerTokensPerEvent.of(List.of(record(4, 9, 8, null, false)),
                new OutputTokenPolicy(1, false)).isEmpty(), "the client's count preferred: no server rate");
    }

    @Test
    void theRuleAppliesToARequestThatDidNotSucceedSentNoUsageAndReceivedContent() {
        assertTrue(ServerTokensPerEvent.endedWithoutUsage(record(3, 7, null, CANCELLED, false)));
        assertFalse(ServerTokensPerEvent.endedWithoutUsage(record(3, 7, 3, CANCELLED, false)), "usage sent");
        assertFalse(ServerTokensPerEvent.endedWithoutUsage(record(0, 1, null, CANCELLED, false)), "no content");
        assertFalse(ServerTokensPerEvent.endedWithoutUsage(record(3, 7, null, null, false)), "succeeded");
    }

    @Test
    void eachEventCountsTheRateElseTheClientsCountElseOne() {
        RequestRecord cut = record(3, 7, null, CANCELLED, false);
        assertEquals(List.of(2.0, 2.0, 2.0), arrivals(cut, 6, OptionalDouble.of(2.0)), "the server's unit");
        assertEquals(List.of(2.0, 2.0, 2.0), arrivals(cut, 6, OptionalDouble.empty()), "the client's 6, evenly");
        assertEquals(List.of(1.0, 1.0, 1.0), arrivals(cut, 0, OptionalDouble.empty()), "nothing counted it");
    }
}
