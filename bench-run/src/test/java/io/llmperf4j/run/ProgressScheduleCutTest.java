package io.llmperf4j.run;

import io.llmperf4j.model.RequestRecord;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The progress line after a stop cut an open loop's schedule (stop 40's leftover): it no longer counts the arrivals
 * never sent as still to come, says why, and its window ends at the cut, as the summary's does, even when the last
 * answer came long before it (it ended at the last answer: 2 answers in 1 s read 2.00 req/s for a load offered 5 s).
 */
class ProgressScheduleCutTest {

    private static RequestRecord ok() {
        return new RequestRecord(0, "id", "resp", 0, 10_000_000, 15_000_000, 20_000_000, 3, new long[0], "text", 10, 5,
                4, 4, 10, "stop", null);
    }

    @Test
    void aStopThatCutTheScheduleEndsTheCountAndTheWindowThere() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProgressPrinter progress = new ProgressPrinter(new PrintStream(bytes, true, StandardCharsets.UTF_8), 10,
                false, "");
        long start = System.nanoTime() - 10_000_000_000L; // the window opened 10 s ago
        progress.onMeasureStart(start);
        progress.onMeasuredWireEnd(start + 500_000_000L);
        progress.onMeasuredWireEnd(start + 1_000_000_000L);
        progress.onRecord(ok());
        progress.onRecord(ok());
        progress.onSendingClosed(start + 5_000_000_000L); // the stop, 4 s after the last answer
        progress.onScheduleCut(8, false);
        progress.finish();
        String last = bytes.toString(StandardCharsets.UTF_8).lines().reduce((a, b) -> b).orElseThrow();
        assertTrue(last.startsWith("llmperf4j: 2/2 requests done (8 arrivals not sent: the run was stopped), 0 "
                + "failed, "), last);
        assertTrue(last.contains(" s, window ended at 5.0 s (0.40 req/s)"), last);
    }
}
