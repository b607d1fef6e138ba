package io.llmperf4j.model;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The one reading of a server going away: after how many successes, or before any but after it had answered. */
class ServerGoneTest {

    private static final long T0 = 1_700_000_587_000_000L; // 22:23:07 UTC

    private static ServerGone.Request ok(long startMicros, long e2eMillis) {
        return new ServerGone.Request(true, null, null, startMicros, e2eMillis * 1_000_000, 1_000_000,
                500_000, -1);
    }

    private static ServerGone.Request cut(long startMicros, long ttftMillis) {
        return new ServerGone.Request(false, FailureKind.CONNECTION_CLOSED, -1, startMicros, 900_000_000,
                ttftMillis * 1_000_000, ttftMillis * 1_000_000 / 2, -1);
    }

    /** A stream cut before its first token: the server sent its status and headers, then went away. */
    private static ServerGone.Request headersOnly(long startMicros, long headersMillis) {
        return new ServerGone.Request(false, FailureKind.CONNECTION_CLOSED, -1, startMicros, 900_000_000, -1,
                headersMillis * 1_000_000, -1);
    }

    private static ServerGone.Request refused(long startMicros) {
        return new ServerGone.Request(false, FailureKind.CONNECT_FAILED, -1, startMicros, 1_000_000, -1, -1, -1);
    }

    @Test
    void afterSuccessesCountsThoseEndedBeforeTheFirstRefusal() {
        // two successes end before the first refusal at +1 s, a third after it
        Optional<ServerGone> gone = ServerGone.read(List.of(ok(T0, 100), ok(T0, 200), refused(T0 + 1_000_000),
                ok(T0, 5_000), refused(T0 + 2_000_000)));
        assertEquals(Optional.of(new ServerGone(T0 + 1_000_000, 2, 0)), gone);
        assertEquals("after 2 successes", gone.get().when());
        assertEquals("22:23:08", gone.get().utcTime());
    }

    @Test
    void killedDuringTheFirstWaveIsBeforeAnySuccessButAfterItHadAnswered() {
        Optional<ServerGone> gone = ServerGone.read(List.of(cut(T0, 20), cut(T0, 30), refused(T0 + 500_000),
                refused(T0 + 600_000)));
        assertEquals(Optional.of(new ServerGone(T0 + 500_000, 0, 2)), gone);
        assertEquals("before any request succeeded but after it had begun answering 2 requests", gone.get().when());
    }

    /**
     * Killed during the prefill: the server had sent 200 and its headers, no token yet. Its headers are its answer:
     * the refusals after them are the server going away, not the configuration (QA: they read "configuration").
     */
    @Test
    void responseHeadersWithoutContentAreAnAnswer() {
        List<ServerGone.Request> requests = List.of(headersOnly(T0, 3), headersOnly(T0, 4), refused(T0 + 500_000),
                refused(T0 + 600_000));
        assertEquals(Optional.of(new ServerGone(T0 + 500_000, 0, 2)), ServerGone.read(requests));
        assertEquals(Arrays.asList(FailureCause.CAPACITY, FailureCause.CAPACITY, FailureCause.SERVER_UNAVAILABLE,
                FailureCause.SERVER_UNAVAILABLE), ServerGone.causes(requests));
        assertEquals(T0 + 3_000, ServerGone.servedSince(requests));
        // a refusal sent before the headers came is still the configuration's: the server had not answered yet
        assertEquals(FailureCause.CONFIGURATION, ServerGone.causes(List.of(refused(T0 + 1_000),
                headersOnly(T0, 3))).get(0));
    }

    /** The records' reading ({@link FailureCause#of(List)}) takes the headers from the record's phases. */
    @Test
    void aRecordsResponseHeadersAreItsAnswer() {
        RequestRecord cut = failed(0, T0, FailureKind.CONNECTION_CLOSED)
                .withPhases(new RequestPhases(1_000_000, -1, 2_000_000, 3_000_000));
        RequestRecord refused = failed(1, T0 + 500_000, FailureKind.CONNECT_FAILED);
        assertEquals(Arrays.asList(FailureCause.CAPACITY, FailureCause.SERVER_UNAVAILABLE),
                FailureCause.of(List.of(cut, refused)));
        assertEquals(Optional.of(new ServerGone(T0 + 500_000, 0, 1)), ServerGone.of(List.of(cut, refused)));
        assertEquals(List.of(FailureCause.CONFIGURATION), FailureCause.of(List.of(refused)).subList(0, 1));
        assertEquals(FailureCause.CONFIGURATION, FailureCause.of(List.of(cut.withPhases(RequestPhases.UNKNOWN),
                refused)).get(1), "without its headers the cut stream is no answer");
    }

    private static RequestRecord failed(int index, long startMicros, FailureKind kind) {
        return new RequestRecord(index, "r" + index, null, startMicros, -1, -1, 900_000_000L, 0, new long[0], "", 10,
                10, 0, null, null, null, new Failure(kind, -1, kind.name()));
    }

    @Test
    void refusalsBeforeTheServerEverAnsweredAreNotItGoingAway() {
        assertEquals(Optional.empty(), ServerGone.read(List.of(refused(T0), refused(T0 + 1), cut(T0 + 2, 10))));
        assertEquals(Optional.empty(), ServerGone.read(List.of(ok(T0, 10))));
    }
}
