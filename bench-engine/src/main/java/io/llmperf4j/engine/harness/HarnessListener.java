package io.llmperf4j.engine.harness;

import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.model.RequestRecord;

import java.util.Map;

/**
 * Progress of a harness run, on the harness's thread; every method does nothing by default. Iteration scores are
 * final only when their fork's load has ended (a request straddling windows adds tokens to each), so
 * {@link #onIteration} is called for each window of a fork after that fork's run.
 */
public interface HarnessListener extends RecordListener {

    HarnessListener NONE = new HarnessListener() { };

    default void onRunStart(String benchmark, Map<String, String> params, LoadSettings load,
                            HarnessSettings settings) {
    }

    default void onForkStart(int fork, int forks) {
    }

    default void onIteration(IterationResult iteration) {
    }

    default void onForkEnd(ForkResult fork) {
    }

    default void onRunEnd(HarnessResult result) {
    }

    @Override
    default void onRecord(RequestRecord record) {
    }
}
