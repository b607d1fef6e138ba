package io.llmperf4j.distributed;

/**
 * A member's wall clock against the coordinator's, estimated as NTP does from round trips: a probe sent at local
 * {@code t0}, answered with the remote time {@code r}, back at {@code t1}, gives {@code offset = r - (t0 + t1) / 2},
 * wrong by at most half the round trip; the sample with the shortest round trip is kept.
 *
 * @param offsetMicros    remote minus local wall clock
 * @param roundTripMicros the kept sample's round trip (twice the error bound)
 */
public record ClockOffset(long offsetMicros, long roundTripMicros) {

    /** One sample. */
    static ClockOffset of(long t0Micros, long remoteMicros, long t1Micros) {
        return new ClockOffset(remoteMicros - (t0Micros + t1Micros) / 2, t1Micros - t0Micros);
    }

    /** The better of two samples: the shorter round trip. */
    ClockOffset better(ClockOffset other) {
        return other == null || roundTripMicros <= other.roundTripMicros ? this : other;
    }

    /**
     * The offset a worker's start instant is moved by: the estimate, or 0 when it lies within its own error bound
     * (half the round trip), where the clocks may well agree. On one machine they do, and an estimate off by a busy
     * probe's few milliseconds started that worker's clock as much late in truth while the merged window placed it
     * at the shared instant: its last tokens fell after the window's end (a clean run's
     * {@code output_tokens_delivered} 3999 of 4000, offset 5.48 ms with a 12.9 ms round trip).
     */
    long appliedMicros() {
        return 2 * Math.abs(offsetMicros) <= roundTripMicros ? 0 : offsetMicros;
    }

    public double offsetMillis() {
        return offsetMicros / 1e3;
    }

    public double roundTripMillis() {
        return roundTripMicros / 1e3;
    }
}
