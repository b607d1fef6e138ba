package io.llmperf4j.run;

import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.report.metrics.RunWarning;
import io.llmperf4j.report.metrics.WarningCode;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A sweep's levels' warnings on the console: one line per code, however many levels it fired at. */
class LevelWarningsTest {

    private static LevelWarnings.Level closed(int concurrency, boolean fewSaid, RunWarning... warnings) {
        return new LevelWarnings.Level(new ClosedLoopSettings(concurrency, Duration.ofMinutes(1)), List.of(warnings),
                fewSaid);
    }

    private static RunWarning cached(double percent) {
        return new RunWarning(WarningCode.PREFIX_CACHE_REUSED, percent + " % of the prompt tokens came from the cache.");
    }

    @Test
    void aCodeAtSeveralLevelsIsOneLineNamingThemWithTheFirstLevelsMessage() {
        List<String> lines = LevelWarnings.merged(List.of(
                closed(1, false, cached(91.1)),
                closed(2, false, cached(88.0), new RunWarning(WarningCode.REQUESTS_FAILED, "1 of 12 failed.")),
                closed(4, false, cached(85.5))));
        assertEquals(List.of(
                "[REQUESTS_FAILED] at concurrency 2: 1 of 12 failed.", // WarningCode order, not the levels'
                "[PREFIX_CACHE_REUSED] at concurrency 1, 2, 4; concurrency 1: 91.1 % of the prompt tokens came "
                        + "from the cache."), lines);
    }

    @Test
    void twentyLevelsWithTheSameWarningAreOneLine() {
        List<LevelWarnings.Level> levels = new ArrayList<>();
        StringBuilder names = new StringBuilder();
        for (int c = 1; c <= 20; c++) {
            levels.add(closed(c, false, cached(90.0 + c / 10.0)));
            names.append(c == 1 ? "" : ", ").append(c);
        }
        assertEquals(List.of("[PREFIX_CACHE_REUSED] at concurrency " + names + "; concurrency 1: 90.1 % of the "
                + "prompt tokens came from the cache."), LevelWarnings.merged(levels));
    }

    @Test
    void fewSamplesTheVerdictAlreadySaidIsLeftOutAndALevelWithoutASummaryIsSkipped() {
        RunWarning few = new RunWarning(WarningCode.FEW_SAMPLES, "Only 3 successful requests.");
        List<String> lines = LevelWarnings.merged(List.of(
                closed(1, true, few),
                new LevelWarnings.Level(new ClosedLoopSettings(2, Duration.ofMinutes(1)), null, false),
                closed(4, false, few)));
        assertEquals(List.of("[FEW_SAMPLES] at concurrency 4: Only 3 successful requests."), lines);
    }

    @Test
    void ratesAreNamedInReqPerSecondAndTheClientsLoadByItsCodeAsEveryWarning() {
        RunWarning client = new RunWarning(WarningCode.CLIENT_BOTTLENECK, "The client may have limited this run.");
        List<String> lines = LevelWarnings.merged(List.of(
                new LevelWarnings.Level(OpenLoopSettings.builder(0.5).maxRequests(10).build(), List.of(client),
                        false),
                new LevelWarnings.Level(OpenLoopSettings.builder(2).maxRequests(10).build(), List.of(client),
                        false)));
        assertEquals(List.of("[CLIENT_BOTTLENECK] at rate 0.5, 2 req/s; rate 0.5 req/s: The client may have limited "
                + "this run."), lines);
    }

    /** A rate of sessions (--turns) starts sessions: its levels are named in sessions/s, as the sweep's table is. */
    @Test
    void ratesOfSessionsAreNamedInSessionsPerSecond() {
        RunWarning client = new RunWarning(WarningCode.CLIENT_BOTTLENECK, "The client may have limited this run.");
        LevelWarnings.Level half = new LevelWarnings.Level(OpenLoopSettings.builder(0.5).maxRequests(10).build(),
                List.of(client), false);
        LevelWarnings.Level two = new LevelWarnings.Level(OpenLoopSettings.builder(2).maxRequests(10).build(),
                List.of(client), false);
        assertEquals(List.of("[CLIENT_BOTTLENECK] at rate 0.5, 2 sessions/s; rate 0.5 sessions/s: The client may have "
                + "limited this run."), LevelWarnings.merged(List.of(half, two), "sessions/s"));
        assertEquals(List.of("[CLIENT_BOTTLENECK] at rate 2 sessions/s: The client may have limited this run."),
                LevelWarnings.merged(List.of(two), "sessions/s"));
    }

    @Test
    void noWarningsNoLines() {
        assertEquals(List.of(), LevelWarnings.merged(List.of(closed(1, false), closed(2, false))));
    }
}
