package io.llmperf4j.run;

import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.jsonl.RequestJournal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StopControlTest {

    private static RequestRecord ok(int i) {
        return new RequestRecord(i, "id-" + i, "resp", 0, 1_000_000, 2_000_000, 3_000_000, 3, new long[0], "text",
                10, 5, 4, 4, 10, "stop", null);
    }

    /**
     * A second signal while records are still being appended (a counting backlog after the stop): the number of
     * records its line reports is the number the journal holds when the process halts (QA: records written after the
     * message were not in it).
     */
    @Test
    void aQuitAtOnceReportsTheRecordsTheJournalKeeps(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        AtomicLong linesAtHalt = new AtomicLong(-1);
        Path file = dir.resolve(RequestJournal.FILE_NAME);
        StopControl stops = new StopControl(err, false, () -> {
            try {
                linesAtHalt.set(Files.readAllLines(file).size());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try (ResultsFolder folder = ResultsFolder.lock(dir, false, err)) {
            stops.measurementStarts(() -> { });
            stops.atQuit(folder::quit);
            RequestJournal journal = RequestJournal.create(dir);
            stops.journal(journal);
            stops.levelStarted();
            AtomicBoolean appending = new AtomicBoolean(true);
            Thread appender = new Thread(() -> {
                for (int i = 0; appending.get(); i++) journal.append(ok(i)); // the backlog's records, as fast as can be
            });
            appender.start();
            while (Files.readAllLines(file).size() < 50) Thread.sleep(1);
            assertTrue(stops.onSignal("INT"), "the first stops");
            assertFalse(stops.onSignal("INT"), "the second quits at once");
            appending.set(false);
            appender.join();
            journal.close();
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("quitting at once: (\\d+) requests? recorded (?:are|is) in ").matcher(text);
        assertTrue(m.find(), text);
        assertEquals(linesAtHalt.get(), Long.parseLong(m.group(1)), text);
    }

    /** A signal after every request had ended on the wire cut nothing: the level is not marked stopped by it. */
    @Test
    void aSignalInALevelItDidNotCutLeavesItUnmarked() {
        StopControl stops = new StopControl(new PrintStream(new ByteArrayOutputStream()), false, () -> { });
        stops.measurementStarts(() -> { });
        stops.levelStarted();
        assertTrue(stops.onSignal("INT"));
        stops.levelEnded(false);
        assertNull(stops.levelStoppedBy());
        assertNull(stops.stoppedBy());
        assertEquals("SIGINT", stops.uncutSignal());

        StopControl cut = new StopControl(new PrintStream(new ByteArrayOutputStream()), false, () -> { });
        cut.measurementStarts(() -> { });
        cut.levelStarted();
        assertTrue(cut.onSignal("TERM"));
        cut.levelEnded(true);
        assertEquals("SIGTERM", cut.levelStoppedBy());
        assertEquals("SIGTERM", cut.stoppedBy());
        assertNull(cut.uncutSignal());
    }

    /**
     * The stop comes before the signal's line: a write to stderr can wait (a pipe, the progress line), and a request
     * must not reach the wire meanwhile (QA: a request sent ~50 ms after the SIGINT of an open loop).
     */
    @Test
    void aSignalStopsSendingBeforeItPrintsItsLine() {
        for (boolean severalLevels : new boolean[] {false, true}) {
            AtomicBoolean stopped = new AtomicBoolean();
            AtomicBoolean printedBeforeTheStop = new AtomicBoolean();
            PrintStream err = new PrintStream(new java.io.OutputStream() {
                @Override
                public void write(int b) {
                    if (!stopped.get()) printedBeforeTheStop.set(true);
                }
            }, true, StandardCharsets.UTF_8);
            StopControl stops = new StopControl(err, severalLevels, () -> { });
            stops.measurementStarts(() -> { });
            stops.attach(() -> stopped.set(true), () -> stopped.set(true));
            stops.levelStarted();
            assertTrue(stops.onSignal("INT"));
            assertTrue(stopped.get());
            assertFalse(printedBeforeTheStop.get(), "several levels: " + severalLevels);
        }
    }
}
