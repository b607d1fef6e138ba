package io.llmperf4j.report.compare;

import io.llmperf4j.report.output.SweepFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sweep stopped between levels (its levels that ran are whole; the sweep is not) is an incomplete side: the QA's
 * SIGTERM during the sleep after level 1 of 1,2,4 compared with exit 0 and no word.
 */
class StoppedSweepTest {

    private static Path sweep(Path dir, boolean stopped, List<Double> ran) throws Exception {
        Files.createDirectories(dir);
        List<SweepFiles.Level> levels = ran.stream().map(c -> new SweepFiles.Level(c, "concurrency", "concurrency "
                + c.intValue(), 20, 20, 0, 0.0, 10.0, 1.0, null, null, null, null, false, false, false, false, false,
                null, null, null)).toList();
        SweepFiles.write(dir, "m_100_5", new SweepFiles.Document(SweepFiles.SCHEMA, "m", "concurrency",
                "concurrency", List.of(1.0, 2.0, 4.0), "sweep", "none", new SweepFiles.Rules(5, 2, 5),
                new SweepFiles.Verdict(null, null, null, List.of(), List.of()), stopped, levels));
        return dir;
    }

    @Test
    void aSweepStoppedBetweenLevelsIsIncomplete(@TempDir Path tmp) throws Exception {
        Path whole = sweep(tmp.resolve("whole"), false, List.of(1.0, 2.0, 4.0));
        Path stopped = sweep(tmp.resolve("stopped"), true, List.of(1.0));
        List<StoppedRuns.Note> notes = StoppedRuns.notes(whole, stopped);
        assertEquals(List.of(new StoppedRuns.Note("the candidate (" + stopped + ") is a sweep stopped before its last "
                + "level: 1 of its 3 planned levels ran; the levels it never ran are compared with nothing", true)),
                notes);
        assertTrue(StoppedRuns.notes(whole, sweep(tmp.resolve("again"), false, List.of(1.0, 2.0, 4.0))).isEmpty());
    }
}
