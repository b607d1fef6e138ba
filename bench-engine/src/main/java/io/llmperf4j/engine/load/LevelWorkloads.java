package io.llmperf4j.engine.load;

import io.llmperf4j.model.RequestSpec;

import java.util.List;
import java.util.Objects;

/**
 * The requests each run of a benchmark sends: a sweep's level, or a harness level's fork. A workload meant to be
 * sent again (a dataset, a replayed manifest) is the same list every time ({@link #same}); synthetic prompts can be
 * drawn afresh for each, so that a later level does not find the earlier one's prompts in the server's prefix cache.
 * Every list has the size of the first.
 */
@FunctionalInterface
public interface LevelWorkloads {

    /**
     * The requests of level {@code level} (0-based, in the sweep's order), fork {@code fork} (0-based; 0 without a
     * harness).
     */
    List<RequestSpec> forLevel(int level, int fork);

    /** The same requests for every level and fork. */
    static LevelWorkloads same(List<RequestSpec> specs) {
        Objects.requireNonNull(specs, "specs");
        return (level, fork) -> specs;
    }
}
