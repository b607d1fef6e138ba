package io.llmperf4j.engine.harness;

import io.llmperf4j.engine.load.LoadResult;

import java.util.List;
import java.util.Objects;

/**
 * One fork: a fresh client, continuous load for every window, then iteration scores.
 *
 * @param fork        1-based
 * @param warmup      warmup iterations, in order
 * @param measurement measurement iterations, in order (fewer than planned when aborted)
 * @param load        the run with every record
 * @param aborted     a stop ended the fork early; only windows that ended before the stop are kept
 */
public record ForkResult(int fork, List<IterationResult> warmup, List<IterationResult> measurement, LoadResult load,
                         boolean aborted) {
    public ForkResult {
        warmup = List.copyOf(warmup);
        measurement = List.copyOf(measurement);
        Objects.requireNonNull(load, "load");
    }
}
