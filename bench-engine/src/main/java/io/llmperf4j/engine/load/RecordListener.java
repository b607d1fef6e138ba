package io.llmperf4j.engine.load;

import io.llmperf4j.model.RequestRecord;

/**
 * Told about each finished record (output tokens already counted), for progress and JSONL. Called from the
 * runner's own thread, never an I/O thread, never concurrently with itself, in completion order. An exception
 * thrown here aborts the run (in-flight requests are cancelled) and is rethrown by the runner.
 *
 * <p>Runners call {@link #onScheduledRecord}; by default it passes measured records to {@link #onRecord} and warmup
 * records to {@link #onWarmupRecord} (which ignores them). Override {@code onScheduledRecord} to see send times.
 */
@FunctionalInterface
public interface RecordListener {

    RecordListener NONE = record -> { };

    /** A measured record. */
    void onRecord(RequestRecord record);

    /** A warmup record (excluded from results); ignored by default. */
    default void onWarmupRecord(RequestRecord record) {
    }

    /**
     * A measured request ended on the wire at {@code nanoTime} ({@link System#nanoTime()}); its tokens may be counted,
     * and its record reach {@link #onRecord}, much later (a slow tokenizer on degenerate answers). Unlike the other
     * calls, from any thread, an I/O thread included, possibly concurrently: keep it short and thread-safe. Ignored
     * by default.
     */
    default void onMeasuredWireEnd(long nanoTime) {
    }

    /**
     * The measured window starts at {@code nanoTime} ({@link System#nanoTime()}, possibly a little ahead): the start
     * the run's summary takes (after a warmup, its first measured send or scheduled arrival). Once per run, any
     * thread, as {@link #onMeasuredWireEnd}; ignored by default.
     */
    default void onMeasureStart(long nanoTime) {
    }

    /**
     * Sending was closed at {@code nanoTime} (the run's end, a stop, the deadline): the measured window ends there
     * at the latest, or at the last measured wire end before it. Any thread, as {@link #onMeasuredWireEnd}; ignored by
     * default.
     */
    default void onSendingClosed(long nanoTime) {
    }

    /**
     * An open loop's schedule was cut: the run ended (its timeout when {@code timedOut}, else a stop) before
     * {@code arrivalsNotSent} of its measured arrivals were sent; they never will be. Called once, on the runner's
     * thread, after sending closed and before the records of the requests cancelled then; ignored by default.
     */
    default void onScheduleCut(int arrivalsNotSent, boolean timedOut) {
    }

    /** Every record with its send times; dispatches to {@link #onRecord} or {@link #onWarmupRecord}. */
    default void onScheduledRecord(ScheduledRecord record) {
        if (record.warmup()) {
            onWarmupRecord(record.record());
        } else {
            onRecord(record.record());
        }
    }
}
