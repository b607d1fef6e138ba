package io.llmperf4j.report.search;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A sweep's answer to --slo over the levels that ran: met up to, missed at, in load order; stopped levels left out. */
class SweepSloVerdictTest {
    private static final List<String> OBJECTIVES = List.of("ttft_p99<=500ms");

    private static LevelJudgement judgement(boolean passed, boolean resolved) {
        return new LevelJudgement(40, passed, resolved, List.of(new ObjectiveResult("ttft_p99<=500ms", 40,
                passed ? 0 : 20, passed ? 100 : 900, 90, resolved ? 120 : 2000, 500, "ms", passed, resolved)));
    }

    private static final LevelSlo MET = LevelSlo.of(judgement(true, true), false);
    private static final LevelSlo MISSED = LevelSlo.of(judgement(false, true), false);
    private static final LevelSlo STOPPED = LevelSlo.of(judgement(false, true), true);

    private static SweepSloVerdict concurrency(double[] levels, LevelSlo... verdicts) {
        return SweepSloVerdict.of(OBJECTIVES, "concurrency", "concurrency",
                Arrays.stream(levels).boxed().toList(), Arrays.asList(verdicts));
    }

    @Test
    void aLevelsVerdictInAWord() {
        assertEquals(new LevelSlo("met", true, 40, List.of(), List.of()), MET);
        assertEquals("met", MET.cell());
        assertEquals(new LevelSlo("missed", true, 40, List.of("ttft_p99<=500ms"), List.of()), MISSED);
        LevelSlo estimate = LevelSlo.of(judgement(false, false), false);
        assertEquals("missed (unresolved)", estimate.cell());
        assertTrue(estimate.failed(), "an unresolved level counts by its estimate");
        assertEquals(List.of("ttft_p99<=500ms"), estimate.unresolved());
        assertEquals("met (unresolved)", LevelSlo.of(judgement(true, false), false).cell());
        assertEquals(new LevelSlo("not_judged", null, null, List.of(), List.of()), STOPPED);
        assertEquals("not judged", STOPPED.cell());
        assertFalse(STOPPED.failed());
        assertNull(LevelSlo.of(null, false), "no objectives, no verdict");
    }

    @Test
    void metUpToTheLevelBelowTheFirstMiss() {
        SweepSloVerdict v = concurrency(new double[] {1, 2, 4, 8, 16}, MET, MET, MET, MISSED, MISSED);
        assertEquals(new SweepSloVerdict(OBJECTIVES, false, 4.0, 8.0, List.of(8.0, 16.0), List.of(),
                "SLO met up to concurrency 4; missed at 8, 16"), v);
    }

    @Test
    void everyLevelMet() {
        assertEquals(new SweepSloVerdict(OBJECTIVES, true, 8.0, null, List.of(), List.of(),
                "SLO met at every level, up to concurrency 8"), concurrency(new double[] {1, 8}, MET, MET));
    }

    @Test
    void theLowestLevelMissed() {
        SweepSloVerdict v = concurrency(new double[] {1, 2}, MISSED, MISSED);
        assertEquals(new SweepSloVerdict(OBJECTIVES, false, null, 1.0, List.of(1.0, 2.0), List.of(),
                "SLO missed at concurrency 1, 2 (already at the lowest level judged)"), v);
    }

    @Test
    void aLevelMetAboveAMissIsNotCountedAndLevelsAreTakenInLoadOrder() {
        // run high to low: the answer still reads in load order
        SweepSloVerdict v = concurrency(new double[] {16, 8, 4, 2}, MET, MISSED, MET, MET);
        assertEquals(4.0, v.metUpTo());
        assertEquals(8.0, v.firstMissed());
        assertEquals("SLO met up to concurrency 4; missed at 8; met again at 16, above a level that missed (not "
                + "counted)", v.answer());
        assertFalse(v.passed());
    }

    @Test
    void aStoppedLevelIsNotJudged() {
        SweepSloVerdict v = concurrency(new double[] {1, 2, 4}, MET, STOPPED, MET);
        assertEquals(new SweepSloVerdict(OBJECTIVES, true, 4.0, null, List.of(), List.of(2.0),
                "SLO met at every level judged, up to concurrency 4; not judged (stopped before its end): 2"), v);
        SweepSloVerdict none = concurrency(new double[] {1}, STOPPED);
        assertNull(none.passed(), "nothing judged: neither passed nor failed");
        assertEquals("SLO not judged: every level was stopped before its end", none.answer());
    }

    @Test
    void ratesAreNamedWithTheirUnitAndLevelsWithoutAVerdictLeftOut() {
        List<LevelSlo> verdicts = new ArrayList<>(Arrays.asList(MET, null, MISSED));
        SweepSloVerdict v = SweepSloVerdict.of(OBJECTIVES, "rate", "req/s", List.of(0.5, 1.0, 2.5), verdicts);
        assertEquals("SLO met up to rate 0.5 req/s; missed at 2.5 req/s", v.answer());
        assertNull(SweepSloVerdict.of(OBJECTIVES, "rate", "req/s", List.of(1.0), Arrays.asList((LevelSlo) null)),
                "no level has a verdict (iterations): no answer");
        // a rate of sessions is named in its own unit
        assertEquals("SLO met up to rate 0.5 sessions/s; missed at 2.5 sessions/s", SweepSloVerdict.of(OBJECTIVES,
                "rate", "sessions/s", List.of(0.5, 1.0, 2.5), verdicts).answer());
    }
}
