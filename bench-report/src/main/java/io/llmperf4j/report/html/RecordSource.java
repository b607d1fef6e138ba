package io.llmperf4j.report.html;

/** Where the report's per-request records came from, and so how much they hold. */
public enum RecordSource {
    /** The run in memory, right after it: every field, event times included. */
    MEMORY("the run in memory", true),
    /** {@code requests.jsonl}: every field, event times included. */
    JOURNAL("requests.jsonl", true),
    /** {@code <base>_requests.csv}: no per-event times and no generated text. */
    CSV("the per-request CSV", false);

    private final String description;
    private final boolean eventTimes;

    RecordSource(String description, boolean eventTimes) {
        this.description = description;
        this.eventTimes = eventTimes;
    }

    /** A few words for the page, e.g. "requests.jsonl". */
    public String description() {
        return description;
    }

    /** Whether records carry their content events' arrival times. */
    public boolean hasEventTimes() {
        return eventTimes;
    }
}
