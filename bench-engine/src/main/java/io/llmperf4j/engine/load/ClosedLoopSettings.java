package io.llmperf4j.engine.load;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * A closed-loop run: {@code concurrency} slots each keep one request in flight.
 *
 * @param concurrency  requests in flight at once (llmperf's --num-concurrent-requests)
 * @param maxCompleted records to collect; empty means one per request spec (llmperf's --max-num-completed-requests,
 *                     which is also its number of prompts)
 * @param timeout      run duration limit; at the limit, requests in flight are cancelled and recorded as CANCELLED
 */
public record ClosedLoopSettings(int concurrency, OptionalInt maxCompleted, Duration timeout) {

    public ClosedLoopSettings {
        if (concurrency < 1) throw new IllegalArgumentException("concurrency (" + concurrency + ") must be >= 1");
        Objects.requireNonNull(maxCompleted, "maxCompleted");
        if (maxCompleted.isPresent() && maxCompleted.getAsInt() < 1) {
            throw new IllegalArgumentException("maxCompleted (" + maxCompleted.getAsInt() + ") must be >= 1");
        }
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout (" + timeout + ") must be > 0");
        }
    }

    /** One record per request spec. */
    public ClosedLoopSettings(int concurrency, Duration timeout) {
        this(concurrency, OptionalInt.empty(), timeout);
    }

    public ClosedLoopSettings withMaxCompleted(int max) {
        return new ClosedLoopSettings(concurrency, OptionalInt.of(max), timeout);
    }
}
