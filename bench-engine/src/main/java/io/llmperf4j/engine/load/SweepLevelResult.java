package io.llmperf4j.engine.load;

import java.util.Objects;

/**
 * One level of a sweep.
 *
 * @param index   position in the sweep, 0-based
 * @param result  the run, with its records (an aborted level keeps what it recorded, cancellations included)
 * @param summary the level's figures
 * @param aborted a stop ended the level early; its failure rate counts the cancelled requests
 */
public record SweepLevelResult(int index, LoadResult result, LevelSummary summary, boolean aborted) {
    public SweepLevelResult {
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(summary, "summary");
    }

    public LoadSettings settings() {
        return result.settings();
    }
}
