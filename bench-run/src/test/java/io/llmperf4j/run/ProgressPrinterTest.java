package io.llmperf4j.run;

import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProgressPrinterTest {

    private static RequestRecord ok(long ttftMillis) {
        return new RequestRecord(0, "id", "resp", 0, ttftMillis * 1_000_000, ttftMillis * 1_000_000 + 5_000_000,
                ttftMillis * 2_000_000, 3, new long[0], "text", 10, 5, 4, 4, 10, "stop", null);
    }

    private static RequestRecord failed() {
        return new RequestRecord(0, "id", null, 0, RequestRecord.NEVER, RequestRecord.NEVER, 1_000_000, 0, null, "",
                10, 5, -1, null, null, null, new Failure(FailureKind.HTTP_STATUS, 500, "boom"));
    }

    @Test
    void plainLinesEndWithTheLastRequestAndShowFailuresAndTtft() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProgressPrinter progress = new ProgressPrinter(new PrintStream(bytes, true, StandardCharsets.UTF_8), 3,
                false, "concurrency 2");
        progress.onRecord(ok(10));
        progress.onRecord(failed());
        progress.onRecord(ok(30));
        progress.finish();
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertFalse(text.contains("\r"), text);
        String last = text.lines().reduce((a, b) -> b).orElseThrow();
        assertTrue(last.startsWith("llmperf4j: [concurrency 2] 3/3 requests done, 1 failed, "), text);
        assertTrue(last.endsWith(", TTFT p50 20.0 ms"), text);
    }

    /**
     * The line's figures are the summary's for the same window (QA): its clock starts at the measured window's start
     * (not the level's), its rate counts the measured requests over on the wire (a counting backlog does not make it
     * read low) and never the warmup's.
     */
    @Test
    void itsTimeAndRateAreTheMeasuredWindowsWarmupLeftOutBacklogIn() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProgressPrinter progress = new ProgressPrinter(new PrintStream(bytes, true, StandardCharsets.UTF_8), 0,
                false, "");
        long measureStart = System.nanoTime() - 100_000_000_000L; // the first measured send, 100 s ago
        progress.onMeasureStart(measureStart);
        progress.onMeasureStart(System.nanoTime()); // only the first counts
        progress.onWarmupRecord(ok(10));
        progress.onWarmupRecord(ok(10));
        for (int i = 0; i < 10; i++) progress.onMeasuredWireEnd(measureStart + (i + 1) * 1_000_000_000L);
        progress.onRecord(ok(10)); // two counted, eight still being counted
        progress.onRecord(ok(10));
        progress.finish();
        String last = bytes.toString(StandardCharsets.UTF_8).lines().reduce((a, b) -> b).orElseThrow();
        assertTrue(last.startsWith("llmperf4j: 2 requests done, 0 failed, 100.0 s, 0.10 req/s"), last);
        assertTrue(last.endsWith("(+2 warmup, excluded)"), last);
    }

    @Test
    void itsClockCanStartAtAnotherInstantAndItIgnoresRecordsAfterFinish() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProgressPrinter progress = new ProgressPrinter(new PrintStream(bytes, true, StandardCharsets.UTF_8), 2,
                false, "");
        progress.startClockAt(System.nanoTime() - 1000_000_000_000L); // a cluster's shared start, 1000 s ago
        progress.onRecord(ok(10));
        progress.onRecord(ok(10));
        progress.finish();
        progress.onRecord(ok(10)); // a record still arriving from a worker: ignored
        String text = bytes.toString(StandardCharsets.UTF_8);
        String last = text.lines().reduce((a, b) -> b).orElseThrow();
        assertTrue(last.startsWith("llmperf4j: 2/2 requests done, 0 failed, 1000."), text);
        assertTrue(last.contains(" s, 0.00 req/s"), text);
        assertEquals(2, text.lines().count(), "one line for the first record (a second passed), one for the last");
    }

    @Test
    void liveModeRewritesOneLineAndFinishEndsIt() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProgressPrinter progress = new ProgressPrinter(new PrintStream(bytes, true, StandardCharsets.UTF_8), 0,
                true, "");
        progress.onWarmupRecord(ok(5));
        progress.onRecord(ok(10));
        progress.finish();
        progress.finish(); // idempotent
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("\rllmperf4j: "), text);
        assertTrue(text.endsWith("(+1 warmup, excluded)\033[K\n"), text);
        assertEquals(1, text.chars().filter(c -> c == '\n').count(), text);
        assertTrue(text.contains("1 requests done"), "unknown total: a count only: " + text);
    }

    @Test
    void plainFinishPrintsTheFinalCountsWhenTheLastLineIsBehindThem() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProgressPrinter progress = new ProgressPrinter(new PrintStream(bytes, true, StandardCharsets.UTF_8), 3,
                false, "");
        progress.onRecord(failed()); // printed: the first line is a second after the start at the earliest...
        progress.onRecord(failed()); // ...or not; a timed-out run's cancelled requests come in together
        progress.finish();
        progress.finish(); // nothing more
        String text = bytes.toString(StandardCharsets.UTF_8);
        String last = text.lines().reduce((a, b) -> b).orElseThrow();
        assertTrue(last.startsWith("llmperf4j: 2/3 requests done, 2 failed, "), text);
        assertEquals(1, text.lines().filter(l -> l.startsWith("llmperf4j: 2/3 ")).count(), text);
    }

    @Test
    void plainFinishAddsNothingWhenTheLastLineHasTheFinalCounts() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProgressPrinter progress = new ProgressPrinter(new PrintStream(bytes, true, StandardCharsets.UTF_8), 2,
                false, "");
        progress.onRecord(ok(10));
        progress.onRecord(ok(20)); // the last one: printed
        progress.finish();
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(1, text.lines().filter(l -> l.startsWith("llmperf4j: 2/2 ")).count(), text);
    }
}
