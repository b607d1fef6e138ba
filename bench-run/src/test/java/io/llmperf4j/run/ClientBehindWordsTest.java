package io.llmperf4j.run;

import io.llmperf4j.engine.load.KeepUp;
import io.llmperf4j.engine.load.LevelSummary;
import io.llmperf4j.engine.load.SaturationRules;
import io.llmperf4j.engine.load.SaturationVerdict;
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
}
