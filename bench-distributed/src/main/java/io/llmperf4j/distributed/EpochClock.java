package io.llmperf4j.distributed;

import java.time.Instant;

/** The wall clock in microseconds since the epoch (as {@code RequestRecord.startEpochMicros}). */
final class EpochClock {
    private EpochClock() {
    }

    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000L;
    }
}
