package io.llmperf4j.distributed;

import java.io.Serial;
import java.io.Serializable;
import java.util.concurrent.Callable;

/** Runs on a worker: its wall clock now, in epoch microseconds (one sample of {@link ClockOffset}). */
final class ClockProbe implements Callable<Long>, Serializable {
    @Serial
    private static final long serialVersionUID = 1L;

    @Override
    public Long call() {
        return EpochClock.nowMicros();
    }
}
