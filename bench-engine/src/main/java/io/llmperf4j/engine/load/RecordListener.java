package io.llmperf4j.engine.load;

import io.llmperf4j.model.RequestRecord;

/**
 * Told about each finished record (output tokens already counted), for progress and JSONL. Called from the
 * runner's own thread, never an I/O thread, never concurrently with itself, in completion order. An exception
 * thrown here aborts the run (in-flight requests are cancelled) and is rethrown by the runner.
 */
@FunctionalInterface
public interface RecordListener {

    RecordListener NONE = record -> { };

    void onRecord(RequestRecord record);
}
