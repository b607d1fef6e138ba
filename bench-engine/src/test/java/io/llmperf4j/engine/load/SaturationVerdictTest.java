package io.llmperf4j.engine.load;

import io.llmperf4j.model.FailureCause;
import io.llmperf4j.model.ServerGone;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SaturationVerdictTest {

    private static LevelSummary level(double c, int ok, int total, double tps, double ttftP90) {
        return new LevelSummary(c, ok, total, tps, ok / 10.0, ttftP90 / 2, ttftP90, 1000, 2000);
    }

    /** The seed guide's sweep 1,5,10,20,50: gains +350 %, +78 %, +2.5 %, −15 %. */
    private static final List<LevelSummary> SWEEP = List.of(
            level(1, 50, 50, 100, 100),
            level(5, 50, 50, 450, 120),
            level(10, 50, 50, 800, 400),   // TTFT p90 × 3.33: red line
            level(20, 48, 50, 820, 450),   // +2.5 %: saturated; first failures
            level(50, 7, 50, 700, 3000));  // 7 successes: not judged

    @Test
    void findsSaturationRedLineFailuresAndFewSamples() {
        SaturationVerdict v = SaturationVerdict.evaluate(SWEEP, SaturationRules.DEFAULT);
        assertEquals(OptionalInt.of(3), v.saturationIndex());
        assertEquals(OptionalDouble.of(20), v.saturationLevel());
        assertEquals(OptionalInt.of(2), v.ttftRedLineIndex());
        assertEquals(OptionalDouble.of(10), v.ttftRedLineLevel());
        assertEquals(OptionalInt.of(3), v.firstFailingIndex());
        assertEquals(List.of("level 50: only 7 successful requests (< 10): not judged, its percentiles are "
                + "unstable; run more requests"), v.warnings());

        List<SaturationVerdict.LevelVerdict> l = v.levels();
        assertTrue(Double.isNaN(l.get(0).throughputGain()));
        assertEquals(3.5, l.get(1).throughputGain(), 1e-12);
        assertEquals(0.025, l.get(3).throughputGain(), 1e-12);
        assertEquals(400.0 / 120, l.get(2).ttftP90Ratio(), 1e-12);
        assertFalse(l.get(1).fewSamples());
        assertTrue(l.get(4).fewSamples());
        // 7 successes are too few to judge: no gain, no ratio, no flag (the sweep page's rule: 10 to be judged)
        assertFalse(l.get(4).judged());
        assertTrue(Double.isNaN(l.get(4).throughputGain()));
        assertFalse(l.get(4).saturated());
        assertFalse(l.get(4).ttftJump());
    }

    @Test
    void aFallCountsAsSaturation() {
        SaturationVerdict v = SaturationVerdict.evaluate(List.of(level(1, 20, 20, 100, 10),
                level(2, 20, 20, 90, 10)), SaturationRules.DEFAULT);
        assertEquals(OptionalInt.of(1), v.saturationIndex());
        assertEquals(-0.1, v.levels().get(1).throughputGain(), 1e-12);
    }

    @Test
    void thresholdsAreConfigurable() {
        SaturationVerdict v = SaturationVerdict.evaluate(SWEEP, new SaturationRules(0.01, 10, 50));
        // 48 and 7 successes are below 50: levels 20 and 50 are not judged; +78 % passes a 1 % threshold
        assertEquals(OptionalInt.empty(), v.saturationIndex());
        assertEquals(OptionalInt.empty(), v.ttftRedLineIndex()); // no 10× jump
        assertEquals(2, v.warnings().size());
        assertTrue(v.warnings().get(0).startsWith("level 20: only 48 successful requests (< 50): not judged"));
    }

    @Test
    void aGainOfExactlyTheThresholdIsNotSaturation() {
        List<LevelSummary> levels = List.of(level(1, 20, 20, 100, 10), level(2, 20, 20, 105, 29.99),
                level(4, 20, 20, 105, 90));
        SaturationVerdict v = SaturationVerdict.evaluate(levels, SaturationRules.DEFAULT);
        assertEquals(OptionalInt.of(2), v.saturationIndex()); // +5 % exactly is growth; +0 % is not
        assertEquals(OptionalInt.of(2), v.ttftRedLineIndex()); // 2.999× is no jump, 3.0× is
        assertEquals(OptionalInt.empty(), v.firstFailingIndex());
        assertTrue(v.warnings().isEmpty());
    }

    /**
     * The QA's sweep 1,2,4,8 against a simulator with 4 slots, killed during concurrency 2 (24 × CONNECT_FAILED) and
     * restarted: concurrency 2 is not judged, 4 is compared with 1 and 8 with 4 (+4 %: the saturation point); the
     * refused connections are named, not counted against the service. Before: "saturation point: concurrency 2
     * (output tok/s -100.0 % over concurrency 1)", "first level with failures: concurrency 2".
     */
    @Test
    void aLevelWhereEveryRequestFailedIsNotJudgedAndTheOthersAreComparedAcrossIt() {
        LevelSummary dead = new LevelSummary(2, 0, 24, 0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Map.of(FailureCause.CONFIGURATION, 24), Double.NaN);
        List<LevelSummary> levels = List.of(level(1, 24, 24, 83.3, 52), dead, level(4, 24, 24, 320, 55),
                level(8, 24, 24, 332.8, 260));
        SaturationVerdict v = SaturationVerdict.evaluate(levels, SaturationRules.DEFAULT, "concurrency");
        assertEquals(OptionalInt.of(3), v.saturationIndex());
        assertEquals(320 / 83.3 - 1, v.levels().get(2).throughputGain(), 1e-12); // 4 over 1, across the dead level
        assertEquals(OptionalInt.empty(), v.firstFailingIndex());
        assertFalse(v.levels().get(1).judged());
        assertTrue(Double.isNaN(v.levels().get(1).throughputGain()));
        assertTrue(v.warnings().isEmpty(), v.warnings()::toString); // no "only 0 successful requests" warning
        assertEquals(List.of(
                "saturation point: concurrency 8 (output tok/s +4.0 % over concurrency 4; threshold 5.0 %)",
                "knee: concurrency 4, the last level before output tok/s stopped growing: run there (concurrency 8 "
                        + "took E2E p50 from 1000.0 to 1000.0 ms for output tok/s +4.0 %)",
                "TTFT red line: concurrency 8 (TTFT p90 4.7x concurrency 4; threshold 3.0x)",
                "failures: none that point at the service (connection refused, 4xx, cancellations are named below)",
                "not judged: concurrency 2: every request failed (24 of 24: 24 configuration (connection refused or "
                        + "4xx)); its failure rate is recorded, its performance numbers are empty"),
                v.describe("concurrency"));
    }

    /**
     * A server gone during a level is worded as that level's summary words it ({@link ServerGone}): after successes,
     * or before any request succeeded but after it had begun answering (killed during the first wave).
     */
    @Test
    void theServerGoingAwaySaysWhetherAnyRequestHadSucceeded() {
        LevelSummary firstWave = new LevelSummary(4, 0, 12, 0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Map.of(FailureCause.CAPACITY, 4, FailureCause.SERVER_UNAVAILABLE, 8), Double.NaN,
                new ServerGone(1_700_000_587_000_000L, 0, 4));
        assertEquals("4 capacity (429, 408, 5xx, timeouts, dropped connections,"
                + " error events after tokens), 8 server unavailable (connections "
                + "refused before any request succeeded but after it had begun answering 4 requests: restart, "
                + "crash)", SaturationVerdict.causes(firstWave));
        LevelSummary midRun = level(2, 12, 20, 200, 10).withFailuresByCause(Map.of(FailureCause.SERVER_UNAVAILABLE,
                8));
        midRun = new LevelSummary(midRun.level(), midRun.successes(), midRun.total(), midRun.outputTokensPerSecond(),
                midRun.requestsPerSecond(), midRun.ttftP50Millis(), midRun.ttftP90Millis(), midRun.e2eP50Millis(),
                midRun.e2eP90Millis(), midRun.failuresByCause(), Double.NaN,
                new ServerGone(1_700_000_587_000_000L, 12, 0));
        assertEquals("8 server unavailable (connections refused after successes: restart, crash)",
                SaturationVerdict.causes(midRun));
        assertEquals(midRun.serverGone(), midRun.withScheduledRate(1).withFailuresByCause(midRun.failuresByCause())
                .serverGone(), "kept by the copies");
    }

    /** A level that failed whole: every request refused before any answer of its own, or 4xx. */
    private static LevelSummary failedWhole(double c, int total, int refused, Map<FailureCause, Integer> causes,
                                            ServerGone gone, boolean answered) {
        return new LevelSummary(c, 0, total, 0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, causes,
                Double.NaN, gone, answered, refused);
    }

    /**
     * The QA's sweep 2,4 with the server killed in the first wave's prefill (headers sent, no token): the first level
     * says the server went away during it, not that the service cannot hold it; the next, all refused, says the
     * server was gone, not the configuration (before: "the service cannot hold it", then "8 configuration").
     */
    @Test
    void aServerGoneIsNamedAsSuchAndTheLevelsAfterItFindItGone() {
        LevelSummary killed = failedWhole(2, 8, 0, Map.of(FailureCause.CAPACITY, 2,
                FailureCause.SERVER_UNAVAILABLE, 6), new ServerGone(1_700_000_587_000_000L, 0, 2), true);
        LevelSummary after = failedWhole(4, 8, 8, Map.of(FailureCause.CONFIGURATION, 8), null, false);
        SaturationVerdict v = SaturationVerdict.evaluate(List.of(killed, after), SaturationRules.DEFAULT,
                "concurrency");
        assertEquals(OptionalInt.of(0), v.firstFailingIndex());
        String killedCauses = "2 capacity (429, 408, 5xx, timeouts, dropped connections,"
                + " error events after tokens), 6 server unavailable "
                + "(connections refused before any request succeeded but after it had begun answering 2 requests: "
                + "restart, crash)";
        assertEquals(List.of(
                "saturation point: not judged (no level could be judged)",
                "TTFT red line: not judged (no level could be judged)",
                "first level with failures: concurrency 2 (8 of 8 failed: " + killedCauses + "): the server went "
                        + "away during it, not a limit of the service's capacity",
                "not judged: concurrency 2: every request failed (8 of 8: " + killedCauses + "); its failure rate "
                        + "is recorded, its performance numbers are empty",
                "not judged: concurrency 4: every request failed (8 of 8: 8 server unavailable (connections "
                        + "refused: the server was gone since concurrency 2: restart, crash)); its failure rate is "
                        + "recorded, its performance numbers are empty"), v.describe("concurrency"));
        assertEquals(Map.of(FailureCause.SERVER_UNAVAILABLE, 8), v.summaries().get(1).failuresByCause());
        // read alone (no level before it answered), the same level is the configuration's
        assertEquals(Map.of(FailureCause.CONFIGURATION, 8), SaturationVerdict.evaluate(List.of(after),
                SaturationRules.DEFAULT, "concurrency").summaries().get(0).failuresByCause());
    }

    /**
     * The server killed between levels: the first ran whole, the second found every connection refused. It is the
     * first level with failures, the server gone when it began; 4xx after an answered level stay the configuration.
     */
    @Test
    void aServerKilledBetweenLevelsIsGoneForTheNextNotItsConfiguration() {
        LevelSummary refused = failedWhole(2, 24, 24, Map.of(FailureCause.CONFIGURATION, 24), null, false);
        SaturationVerdict v = SaturationVerdict.evaluate(List.of(level(1, 24, 24, 83.3, 52), refused),
                SaturationRules.DEFAULT, "concurrency");
        assertEquals(OptionalInt.of(1), v.firstFailingIndex());
        assertEquals("first level with failures: concurrency 2 (24 of 24 failed: 24 server unavailable (connections "
                + "refused: the server was gone after concurrency 1: restart, crash)): the server was gone when it "
                + "began, not a limit of the service's capacity", v.describe("concurrency").get(2));
        LevelSummary unauthorized = failedWhole(2, 24, 0, Map.of(FailureCause.CONFIGURATION, 24), null, true);
        SaturationVerdict four = SaturationVerdict.evaluate(List.of(level(1, 24, 24, 83.3, 52), unauthorized),
                SaturationRules.DEFAULT, "concurrency");
        assertEquals(OptionalInt.empty(), four.firstFailingIndex());
        assertEquals(Map.of(FailureCause.CONFIGURATION, 24), four.summaries().get(1).failuresByCause());
    }

    /** 429s, 5xx and timeouts are what "the service cannot hold it" means; they count even on a level not judged. */
    @Test
    void capacityFailuresMakeTheFirstFailingLevelAndNameTheirCause() {
        LevelSummary refused = level(2, 20, 22, 200, 10).withFailuresByCause(Map.of(FailureCause.CONFIGURATION, 2));
        LevelSummary overloaded = new LevelSummary(4, 0, 20, 0, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Map.of(FailureCause.CAPACITY, 20), Double.NaN);
        SaturationVerdict v = SaturationVerdict.evaluate(List.of(level(1, 20, 20, 100, 10), refused, overloaded),
                SaturationRules.DEFAULT, "concurrency");
        assertEquals(OptionalInt.of(2), v.firstFailingIndex());
        List<String> lines = v.describe("concurrency");
        assertTrue(lines.contains("first level with failures: concurrency 4 (20 of 20 failed: 20 capacity "
                + "(429, 408, 5xx, timeouts, dropped connections,"
                + " error events after tokens)): the service cannot hold it"), lines::toString);
        assertTrue(lines.contains("failures not counted against the service: concurrency 2: 2 of 22 (2 "
                + "configuration (connection refused or 4xx))"), lines::toString);
    }

    /** The QA's --max-num-completed-requests 6 --concurrency-sweep 2,8: nothing is judged, and it says why. */
    @Test
    void levelsWithTooFewSuccessesOrRequestsAreNotJudged() {
        List<LevelSummary> levels = List.of(level(2, 6, 6, 158.8, 54.2), level(8, 6, 6, 243.8, 286.6));
        SaturationVerdict v = SaturationVerdict.evaluate(levels, SaturationRules.DEFAULT, "concurrency");
        assertEquals(OptionalInt.empty(), v.ttftRedLineIndex()); // 5.3x, but neither level is judged
        assertEquals(List.of("saturation point: not judged (no level could be judged)",
                "TTFT red line: not judged (no level could be judged)", "failures: none",
                "not judged: concurrency 2: only 6 successful requests (< 10 needed to judge a level)",
                "not judged: concurrency 8: only 6 successful requests (< 10 needed to judge a level); only 6 requests "
                        + "in all, so it never had 8 in flight"), v.describe("concurrency"));
        // enough successes, but fewer requests than the concurrency: never at that load
        SaturationVerdict fewer = SaturationVerdict.evaluate(List.of(level(8, 20, 20, 100, 10),
                level(32, 20, 20, 100, 50)), SaturationRules.DEFAULT, "concurrency");
        assertEquals(OptionalInt.empty(), fewer.saturationIndex());
        assertEquals("not judged: concurrency 32: only 20 requests in all, so it never had 32 in flight",
                fewer.describe("concurrency").get(3));
    }

    /**
     * A rate sweep is judged by whether the service kept up with the offer: the QA's 8,14,20,30 req/s with 4 slots
     * (16.7 req/s). Rate 20 completed at 80.6 % of its schedule though its output tok/s grew 18 %: the saturation
     * point (before: rate 30, the first level whose tok/s grew < 5 %).
     */
    @Test
    void aRateSweepIsJudgedByAchievedOverScheduledRate() {
        List<LevelSummary> rates = List.of(rate(8, 8.0, 7.99, 156), rate(14, 14.0, 13.9, 270.6),
                rate(20, 20.0, 16.12, 320.4), rate(30, 30.0, 16.2, 323.6));
        SaturationVerdict v = SaturationVerdict.evaluate(rates, SaturationRules.DEFAULT, "rate");
        assertEquals(OptionalInt.of(2), v.saturationIndex());
        assertEquals(16.12 / 20, v.levels().get(2).achievedShare(), 1e-12);
        assertEquals(16.12 / 20 - 0.02, v.levels().get(2).shareLow(), 1e-12);
        assertEquals(KeepUp.Reading.FELL_BEHIND, v.levels().get(2).keptUp());
        assertEquals(KeepUp.Reading.KEPT_UP, v.levels().get(0).keptUp());
        assertEquals("saturation point: rate 20 req/s (successes ended at 80.6 % (95 % interval 78.6-82.6 %) of the "
                + "scheduled rate: the service fell behind the offer; threshold 95.0 %)", v.describe("rate").get(0));
        // one level is enough to judge: it is compared with its own offer
        SaturationVerdict one = SaturationVerdict.evaluate(List.of(rates.get(1)), SaturationRules.DEFAULT, "rate");
        assertEquals(List.of("saturation point: not reached (every judged level's successes ended at 95.0 % or more "
                        + "of its scheduled rate)", "TTFT red line: not judged (one level judged: nothing to compare "
                        + "it with)", "failures: none"), one.describe("rate"));
        assertEquals(OptionalInt.of(0), SaturationVerdict.evaluate(List.of(rates.get(2)), SaturationRules.DEFAULT,
                "rate").saturationIndex());
    }

    /**
     * A level whose schedule --timeout cut: its fit keeps to the successes due before the cut could censor them
     * ({@link KeepUp#of}), and the saturation line says so, so the share is not read as the whole schedule's.
     */
    @Test
    void aCutLevelSaysItsShareIsOfTheArrivalsItSent() {
        KeepUp fit = new KeepUp(0.829, 0.80, 0.86, 30, true);
        LevelSummary cut = new LevelSummary(4, 37, 46, 445.9, 3.07, 57.8, 88.4, 1428.5, 2290.5,
                Map.of(FailureCause.CANCELLED, 9), 3.86, null, true, 0, 354, fit);
        SaturationVerdict v = SaturationVerdict.evaluate(List.of(cut), SaturationRules.DEFAULT, "rate");
        assertEquals(OptionalInt.of(0), v.saturationIndex());
        assertEquals("saturation point: rate 4 req/s (successes ended at 82.9 % (95 % interval 80.0-86.0 %) of the "
                + "scheduled rate of its arrivals due before the cut (354 not sent: its schedule was cut): the service "
                + "fell behind the offer; threshold 95.0 %)", v.describe("rate").get(0));
        LevelSummary copy = cut.withServerGoneBefore().withScheduledRate(3.86)
                .withFailuresByCause(Map.of(FailureCause.CANCELLED, 9));
        assertEquals(354, copy.arrivalsNotSent());
        assertEquals(fit, copy.keepUp(), "kept by the copies");
    }

    /**
     * The QA's --rate-sweep 1,2 --duration 10 read by the first-to-last rates: rate 2 at 91.9 % of its schedule, the
     * saturation point, with no backlog. A level whose interval straddles the threshold is too short to tell: never
     * the saturation point, and its own line says so; a later level that fell behind with confidence still is.
     */
    @Test
    void aLevelWhoseIntervalStraddlesTheThresholdIsTooShortToTell() {
        LevelSummary calm = level(1, 11, 11, 150, 60).withScheduledRate(1.0)
                .withKeepUp(new KeepUp(1.0, 0.995, 1.004, 11, true));
        LevelSummary unsure = level(2, 24, 24, 316, 60).withScheduledRate(2.32)
                .withKeepUp(new KeepUp(0.973, 0.873, 1.098, 24, false));
        SaturationVerdict v = SaturationVerdict.evaluate(List.of(calm, unsure), SaturationRules.DEFAULT, "rate");
        assertEquals(OptionalInt.empty(), v.saturationIndex());
        assertEquals(KeepUp.Reading.CANNOT_TELL, v.levels().get(1).keptUp());
        assertFalse(v.levels().get(1).saturated());
        assertEquals(List.of("saturation point: none found (no judged level fell behind its offer with confidence; "
                        + "one was too short to tell whether it kept up: see below)",
                "TTFT red line: not crossed (no TTFT p90 jump of 3.0x or more)", "failures: none",
                "too short to tell whether rate 2 req/s kept up: its successes ended at 97.3 % of the scheduled rate, "
                        + "95 % interval 87.3-109.8 %, which straddles the threshold 95.0 %; a longer level "
                        + "narrows it"),
                v.describe("rate"));
        LevelSummary behind = rate(8, 8.0, 4.0, 320).withKeepUp(new KeepUp(0.5, 0.48, 0.52, 40, true));
        SaturationVerdict later = SaturationVerdict.evaluate(List.of(calm, unsure, behind), SaturationRules.DEFAULT,
                "rate");
        assertEquals(OptionalInt.of(2), later.saturationIndex());
        assertTrue(later.describe("rate").contains("too short to tell whether rate 2 req/s kept up: its successes "
                + "ended at 97.3 % of the scheduled rate, 95 % interval 87.3-109.8 %, which straddles the threshold "
                + "95.0 %; a longer level narrows it"), later.describe("rate")::toString);
        // an open level with no fit (too few successes due before a cut) cannot tell either
        SaturationVerdict none = SaturationVerdict.evaluate(List.of(level(2, 20, 20, 100, 60).withScheduledRate(2.0)),
                SaturationRules.DEFAULT,
                "rate");
        assertEquals(KeepUp.Reading.CANNOT_TELL, none.levels().get(0).keptUp());
        assertEquals(OptionalInt.empty(), none.saturationIndex());
        assertTrue(none.describe("rate").contains("too short to tell whether rate 2 req/s kept up: fewer than 3 "
                + "successes were due early enough to fit; a longer level has more"), none.describe("rate")::toString);
    }

    /**
     * A rate level that fell behind from its intended sends and kept up from its actual ones (an uncapped open loop
     * whose client sent late, {@link KeepUp.ActualSend}) is the client's lag, not the service's: never the saturation
     * point, never the knee (the knee stays the last level that kept up), and its own line says so with the lag.
     */
    @Test
    void aLevelOnlyTheClientsLagFailedIsNeitherTheSaturationPointNorTheKnee() {
        LevelSummary calm = rate(4, 4.0, 4.0, 160);
        KeepUp fromActual = new KeepUp(0.999, 0.990, 1.008, 40, true);
        LevelSummary lagging = rate(8, 8.0, 4.0, 320).withKeepUp(new KeepUp(0.5, 0.48, 0.52, 40, true)
                .withActualSend(new KeepUp.ActualSend(fromActual, 236.0, 310.25)));
        LevelSummary behind = rate(16, 16.0, 8.0, 640);
        SaturationVerdict v = SaturationVerdict.evaluate(List.of(calm, lagging, behind), SaturationRules.DEFAULT,
                "rate");
        assertEquals(KeepUp.Reading.CLIENT_BEHIND, v.levels().get(1).keptUp());
        assertFalse(v.levels().get(1).saturated());
        assertEquals(OptionalInt.of(2), v.saturationIndex());
        assertEquals(OptionalInt.of(0), v.kneeIndex(), "the client-behind level is not where to run");
        assertTrue(v.describe("rate").contains("client behind: rate 8 req/s: the client fell behind its schedule, not "
                + "the service: it sent late (send lag p90 236.0 ms, p99 310.3 ms): from the intended sends its "
                + "successes ended at 50.0 % of the scheduled rate, 95 % interval 48.0-52.0 %; from the actual sends "
                + "at 99.9 %, 95 % interval 99.0-100.8 %; not a saturation point nor a knee: run the client on a "
                + "quieter machine or lower the rate"), v.describe("rate")::toString);
        assertEquals(Optional.of("Kept up: the client fell behind its schedule, not the service: it sent late (send "
                        + "lag p90 236.0 ms, p99 310.3 ms): from the intended sends its successes ended at 50.0 % of the "
                        + "scheduled rate, 95 % interval 48.0-52.0 %; from the actual sends at 99.9 %, 95 % interval "
                        + "99.0-100.8 %, at or above the threshold 95.0 % (SENT_LATE says how late)"),
                SaturationVerdict.keptUpLine(lagging, SaturationRules.DEFAULT));
        // from the actual sends it fell behind too: the service's, as before
        LevelSummary both = lagging.withKeepUp(new KeepUp(0.5, 0.48, 0.52, 40, true)
                .withActualSend(new KeepUp.ActualSend(new KeepUp(0.6, 0.58, 0.62, 40, true), 236.0, 310.25)));
        assertEquals(KeepUp.Reading.FELL_BEHIND, both.keepUp().reading(0.95));
        assertTrue(SaturationVerdict.keptUpLine(both, SaturationRules.DEFAULT).orElseThrow()
                .endsWith("(BEHIND_SCHEDULE)"));
    }

    /** A single open-loop run's line: yes, no, too short to tell; none for a closed loop or a level not judged. */
    @Test
    void aSingleRunSaysWhetherItKeptUp() {
        LevelSummary calm = level(4, 40, 40, 150, 60).withScheduledRate(4.31)
                .withKeepUp(new KeepUp(0.996, 0.979, 1.014, 40, true));
        assertEquals(Optional.of("Kept up: yes: its successes ended at 99.6 % of the scheduled rate, 95 % interval "
                + "97.9-101.4 %, all of it at or above the threshold 95.0 %"),
                SaturationVerdict.keptUpLine(calm, SaturationRules.DEFAULT));
        LevelSummary behind = calm.withKeepUp(new KeepUp(0.482, 0.46, 0.506, 40, true));
        assertEquals(Optional.of("Kept up: no: its successes ended at 48.2 % of the scheduled rate, 95 % interval "
                + "46.0-50.6 %, all of it below the threshold 95.0 % (BEHIND_SCHEDULE)"),
                SaturationVerdict.keptUpLine(behind, SaturationRules.DEFAULT));
        LevelSummary unsure = calm.withKeepUp(new KeepUp(0.973, 0.873, Double.POSITIVE_INFINITY, 40, false));
        assertEquals(Optional.of("Kept up: too short to tell: its successes ended at 97.3 % of the scheduled rate, "
                + "95 % interval 87.3 % or more, which straddles the threshold 95.0 %; a longer level narrows it"),
                SaturationVerdict.keptUpLine(unsure, SaturationRules.DEFAULT));
        assertEquals(Optional.empty(), SaturationVerdict.keptUpLine(level(4, 40, 40, 150, 60),
                SaturationRules.DEFAULT), "a closed loop");
        assertEquals(Optional.empty(), SaturationVerdict.keptUpLine(level(4, 6, 6, 150, 60).withScheduledRate(4),
                SaturationRules.DEFAULT), "too few successes: not judged");
    }

    /** A rate level whose fit reads completion / scheduled, ± 2 points. */
    private static LevelSummary rate(double r, double scheduled, double completion, double tps) {
        double share = completion / scheduled;
        return level(r, (int) (5 * r), (int) (5 * r), tps, 60).withScheduledRate(scheduled)
                .withKeepUp(new KeepUp(share, share - 0.02, share + 0.02, (int) (5 * r), true));
    }

    /**
     * A rate sweep's knee: the last level before the saturation point that kept up with confidence; a level after it
     * that failed arrivals (every third 429, the successes on time) falls behind on its sustained share.
     */
    @Test
    void aRateSweepsKneeIsTheLastLevelThatKeptUp() {
        LevelSummary shed = rate(8, 8.0, 8.0, 320).withKeepUp(new KeepUp(1.0, 0.98, 1.02, 40, true)
                .withFailed(20, "20x 429"));
        SaturationVerdict v = SaturationVerdict.evaluate(List.of(rate(2, 2.0, 2.0, 80), rate(4, 4.0, 4.0, 160), shed),
                SaturationRules.DEFAULT, "rate");
        assertEquals(2, v.saturationIndex().getAsInt());
        assertEquals(4.0, v.kneeLevel().getAsDouble());
        assertEquals(2 / 3.0, v.levels().get(2).achievedShare(), 1e-9);
        List<String> lines = v.describe("rate");
        assertEquals("saturation point: rate 8 req/s (20 of 60 arrivals failed (20x 429): the service sustained 66.7 % "
                + "(95 % interval 54.7-78.7 %) of the scheduled rate; threshold 95.0 %)", lines.get(0));
        assertEquals("knee: rate 4 req/s, the last level that kept up with its offer: run at or below it",
                lines.get(1));
        assertEquals("Kept up: no: 20 of 60 arrivals failed (20x 429): the service sustained 66.7 % of the scheduled "
                + "rate, 95 % interval 54.7-78.7 % (the 66.7 % that succeeded ended at 100.0 % of it, 98.0-102.0 %), "
                + "all of it below the threshold 95.0 % (BEHIND_SCHEDULE)",
                SaturationVerdict.keptUpLine(shed, SaturationRules.DEFAULT).orElseThrow());
    }

    @Test
    void describesTheVerdictForAConsole() {
        List<String> lines = SaturationVerdict.evaluate(SWEEP, SaturationRules.DEFAULT).describe("concurrency");
        assertEquals("saturation point: concurrency 20 (output tok/s +2.5 % over concurrency 10; threshold 5.0 %)",
                lines.get(0));
        // the last level that grew, where to run
        assertEquals("knee: concurrency 10, the last level before output tok/s stopped growing: run there "
                + "(concurrency 20 took E2E p50 from 1000.0 to 1000.0 ms for output tok/s +2.5 %)", lines.get(1));
        assertEquals("TTFT red line: concurrency 10 (TTFT p90 3.3x concurrency 5; threshold 3.0x)", lines.get(2));
        assertEquals("first level with failures: concurrency 20 (2 of 50 failed: 2 other (malformed or cut-short "
                + "streams, client errors, or no known cause))", lines.get(3));
        assertTrue(lines.get(4).startsWith("not judged: concurrency 50: only 7 successful requests"), lines::toString);
        // the QA's one-level sweep: nothing was compared, so nothing is "not reached" or "not crossed"
        List<String> one = SaturationVerdict.evaluate(List.of(level(4, 20, 20, 100, 10)), SaturationRules.DEFAULT,
                "concurrency").describe("concurrency");
        assertEquals(List.of("saturation point: not judged (one level judged: nothing to compare it with)",
                "TTFT red line: not judged (one level judged: nothing to compare it with)", "failures: none"), one);
        List<String> calm = SaturationVerdict.evaluate(List.of(level(1, 20, 20, 100, 10), level(2, 20, 20, 200, 10)),
                SaturationRules.DEFAULT).describe("concurrency");
        assertEquals(List.of("saturation point: not reached (output tok/s grew by at least 5.0 % at every judged "
                + "level)", "TTFT red line: not crossed (no TTFT p90 jump of 3.0x or more)", "failures: none"), calm);
    }

    @Test
    void levelsAreNamedAsTheSweepTableNamesThem() {
        // a concurrency sweep's few-samples warning says "concurrency 50", not "level 50"
        assertEquals(List.of("concurrency 50: only 7 successful requests (< 10): not judged, its percentiles are "
                + "unstable; run more requests"), SaturationVerdict.evaluate(SWEEP, SaturationRules.DEFAULT,
                "concurrency").warnings());
        // a rate sweep's verdict and warning name "rate 2 req/s"
        List<LevelSummary> rates = List.of(level(1, 50, 50, 100, 100), level(2, 30, 50, 101, 400));
        SaturationVerdict v = SaturationVerdict.evaluate(rates, SaturationRules.DEFAULT, "rate");
        assertEquals(List.of("saturation point: rate 2 req/s (output tok/s +1.0 % over rate 1 req/s; threshold "
                        + "5.0 %)", "knee: rate 1 req/s, the last level before output tok/s stopped growing: run "
                        + "there (rate 2 req/s took E2E p50 from 1000.0 to 1000.0 ms for output tok/s +1.0 %)",
                "TTFT red line: rate 2 req/s (TTFT p90 4.0x rate 1 req/s; threshold 3.0x)",
                "first level with failures: rate 2 req/s (20 of 50 failed: 20 other (malformed or cut-short streams, "
                        + "client errors, or no known cause))"), v.describe("rate"));
    }

    @Test
    void rulesAreValidated() {
        assertEquals("ttftJumpFactor (1.0) must be > 1 and finite", assertThrows(IllegalArgumentException.class,
                () -> SaturationRules.DEFAULT.withTtftJumpFactor(1.0)).getMessage());
        assertEquals("minSuccessfulSamples (-1) must be >= 0", assertThrows(IllegalArgumentException.class,
                () -> SaturationRules.DEFAULT.withMinSuccessfulSamples(-1)).getMessage());
    }
}
