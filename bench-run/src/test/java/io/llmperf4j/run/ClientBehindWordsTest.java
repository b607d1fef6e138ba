package io.llmperf4j.run;

import io.llmperf4j.engine.load.KeepUp;
import io.llmperf4j.engine.load.LevelSummary;
import io.llmperf4j.engine.load.SaturationRules;
import io.llmperf4j.engine.load.SaturationVerdict;
import io.llmperf4j.model.FailureCause;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A rate level only the client's send lag failed ({@link KeepUp.Reading#CLIENT_BEHIND}) in the sweep file's
 * {@code kept_up} and the sweep table's flags: its own value and flag, not "no" nor the saturation point's or knee's.
 */
class ClientBehindWordsTest {

    @Test
    void theSweepFileAndTableNameALevelTheClientFellBehind() {
        assertEquals("client_behind", LoadFiles.keptUp(KeepUp.Reading.CLIENT_BEHIND));
        assertEquals("no", LoadFiles.keptUp(KeepUp.Reading.FELL_BEHIND));
        KeepUp lagging = new KeepUp(0.5, 0.48, 0.52, 40, true)
                .withActualSend(new KeepUp.ActualSend(new KeepUp(0.999, 0.99, 1.008, 40, true), 236.0, 310.25));
        LevelSummary s = new LevelSummary(20, 40, 40, 800, 10, 5, 8, 20, 30, Map.of(), 20.0, null, true, 0, 0,
                lagging);
        SaturationVerdict v = SaturationVerdict.evaluate(List.of(s), SaturationRules.DEFAULT, "rate");
        assertEquals("client behind", LoadConsole.flags(v, 0));
    }

    /**
     * The QA: a concurrency level of refusals (6 of 48 succeeded) looked the best of the sweep in the table, with nothing
     * on its row to say the verdict could not judge it. Its row's flags say so, with its error rate.
     */
    @Test
    void aLevelWithTooFewSuccessesSaysSoInItsRow() {
        LevelSummary ok = new LevelSummary(6, 48, 48, 105.4, 10.54, 101.5, 109.0, 567.9, 586.0, Map.of(),
                Double.NaN, null, true, 0);
        LevelSummary refused = new LevelSummary(8, 6, 48, 105.5, 10.55, 101.8, 105.7, 559.5, 564.1,
                Map.of(FailureCause.CAPACITY, 42), Double.NaN, null, true, 0);
        SaturationVerdict v = SaturationVerdict.evaluate(List.of(ok, refused), SaturationRules.DEFAULT, "concurrency");
        assertEquals("", LoadConsole.flags(v, 0, ok));
        assertEquals("not judged: 6 of 48 succeeded (87.5 % failed), first failures", LoadConsole.flags(v, 1, refused));
    }
}
