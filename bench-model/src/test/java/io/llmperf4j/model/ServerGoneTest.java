package io.llmperf4j.model;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The one reading of a server going away: after how many successes, or before any but after it had answered. */
class ServerGoneTest {

    private static final long T0 = 1_700_000_587_000_000L; // 22:23:07 UTC

    private static ServerGone.Request ok(long startMicros, long e2eMillis) {
        return new ServerGone.Request(true, null, null, startMicros, e2eMillis * 1_000_000, 1_000_000);
    }

    private static ServerGone.Request cut(long startMicros, long ttftMillis) {
        return new ServerGone.Request(false, FailureKind.CONNECTION_CLOSED, -1, startMicros, 900_000_000,
                ttftMillis * 1_000_000);
    }

    private static ServerGone.Request refused(long startMicros) {
        return new ServerGone.Request(false, FailureKind.CONNECT_FAILED, -1, startMicros, 1_000_000, -1);
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

    @Test
    void refusalsBeforeTheServerEverAnsweredAreNotItGoingAway() {
        assertEquals(Optional.empty(), ServerGone.read(List.of(refused(T0), refused(T0 + 1), cut(T0 + 2, 10))));
        assertEquals(Optional.empty(), ServerGone.read(List.of(ok(T0, 10))));
    }
}
