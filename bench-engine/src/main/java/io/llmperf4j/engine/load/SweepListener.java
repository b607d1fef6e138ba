package io.llmperf4j.engine.load;

import io.llmperf4j.model.RequestRecord;

/** Told about a sweep's progress, on the sweep's thread; every method does nothing by default. */
public interface SweepListener extends RecordListener {

    SweepListener NONE = new SweepListener() { };

    /** A level is about to start. */
    default void onLevelStart(int index, LoadSettings level) {
    }

    /** A level ended (completed or aborted). */
    default void onLevelEnd(SweepLevelResult level) {
    }

    @Override
    default void onRecord(RequestRecord record) {
    }
}
