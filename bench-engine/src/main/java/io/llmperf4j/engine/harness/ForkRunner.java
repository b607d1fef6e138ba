package io.llmperf4j.engine.harness;

import io.llmperf4j.engine.load.LoadResult;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.model.RequestSpec;

import java.util.List;

/**
 * Runs the continuous load of one harness fork, which {@link HarnessRunner} then cuts into iteration windows: on
 * this machine with a fresh client ({@link ClientForks}), or spread over the workers of a cluster. Offsets in the
 * result are from the fork's start, on one clock.
 */
public interface ForkRunner {

    /** Runs one fork on the calling thread; records go to {@code listener} as they end (or all at the end). */
    LoadResult run(List<RequestSpec> specs, LoadSettings forkLoad, RecordListener listener);

    /**
     * Ends the fork in progress (its in-flight requests cancelled and recorded) and makes any later fork end at
     * once; any thread. Sticky, so a stop that races with the start of a fork is never lost.
     */
    void stop();
}
