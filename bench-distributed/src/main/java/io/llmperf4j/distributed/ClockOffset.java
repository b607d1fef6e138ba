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

    public double offsetMillis() {
        return offsetMicros / 1e3;
    }

    public double roundTripMillis() {
        return roundTripMicros / 1e3;
    }
}
