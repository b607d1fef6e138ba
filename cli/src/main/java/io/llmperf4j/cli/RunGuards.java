package io.llmperf4j.cli;

import java.util.Locale;

/**
 * A request count whose prompts and records cannot fit in the JVM's heap: refused before anything is sent, instead
 * of dying with "Java heap space" after minutes. (A level whose concurrency its own request count never reaches is
 * warned about by the run itself: {@link io.llmperf4j.run.ConcurrencyWarning}.)
 */
final class RunGuards {
    /** A record's own cost: ids, timings, phases, failure, object headers (measured records hold less). */
    static final long RECORD_BYTES = 1_000;
    /** Per output token of a record: its text (~4 chars), event time (8), chars (4) and tokens (4), with margin. */
    static final long BYTES_PER_OUTPUT_TOKEN = 24;
    /** Per input token of a prepared prompt: ~4 characters of one byte each. */
    static final long BYTES_PER_INPUT_TOKEN = 4;
    /** A prepared prompt's own cost: the request spec and its string's header. */
    static final long PROMPT_BYTES = 100;

    /** Above this, raising the heap is no advice: no machine the tool runs on has it. */
    private static final double MACHINE_SIZED_BYTES = 256.0 * (1L << 30);

    private RunGuards() {
    }

    /**
     * Refuses a request count whose prompts and records cannot fit in {@code maxHeapBytes}: the prompts are
     * prepared before the first request, and every record is kept until the files are written.
     *
     * @param recordsPerRequest how many records each prepared request yields (sweep levels times models)
     */
    static void checkMemory(int requests, int recordsPerRequest, int meanInputTokens, int meanOutputTokens,
                            long maxHeapBytes) {
        long perPrompt = PROMPT_BYTES + BYTES_PER_INPUT_TOKEN * meanInputTokens;
        long perRecord = RECORD_BYTES + BYTES_PER_OUTPUT_TOKEN * meanOutputTokens;
        double perRequest = perPrompt + (double) recordsPerRequest * perRecord;
        double needed = requests * perRequest;
        if (needed <= maxHeapBytes) return;
        long fitting = (long) (maxHeapBytes / perRequest);
        throw new UsageException("--max-num-completed-requests " + requests + " cannot fit in memory: its prompts "
                + "and records need about " + bytes(needed) + " (estimated " + bytes(perRequest) + " a request"
                + (recordsPerRequest > 1 ? ", " + recordsPerRequest + " records each" : "") + ") but this JVM may "
                + "use at most " + bytes(maxHeapBytes) + "; give at most " + fitting
                + (needed > MACHINE_SIZED_BYTES ? "" : ", or raise the heap, e.g. LLMPERF4J_JAVA_OPTS=-Xmx"
                + Math.max(1, (long) Math.ceil(needed * 1.25 / (1L << 30))) + "g"));
    }

    private static String bytes(double bytes) {
        String[] units = {"B", "KB", "MB", "GB", "TB", "PB"};
        int unit = 0;
        while (bytes >= 1024 && unit < units.length - 1) {
            bytes /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
    }
}
