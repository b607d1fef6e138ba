package io.llmperf4j.report.compare;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.OptionalLong;

/**
 * A run's own measured window, from its summary ({@code run.duration_s}): the denominator of the run's output and
 * request throughput in its console, JSON and HTML. Compare divides by it, so a run compared with itself shows its
 * own figures; the window rebuilt from the records (first send to last end) starts at the first request's send
 * stamp, a few milliseconds after the run's clock started (156.94 against the run's 156.59 tok/s, 4.894 against
 * 4.905 s).
 */
final class RunWindow {

    private RunWindow() {
    }

    /**
     * {@code run.duration_s} in ns when the summary is of the same requests ({@code run.requests_recorded} equals
     * {@code recorded}: a journal or CSV left by another run in the folder is not) and positive; empty otherwise.
     */
    static OptionalLong ofSummary(JsonNode summary, int recorded) {
        JsonNode run = summary.path("run");
        JsonNode duration = run.path("duration_s");
        JsonNode count = run.path("requests_recorded");
        if (!duration.isNumber() || !count.canConvertToInt() || count.asInt() != recorded) return OptionalLong.empty();
        long nanos = Math.round(duration.asDouble() * 1e9);
        return nanos > 0 ? OptionalLong.of(nanos) : OptionalLong.empty();
    }
}
