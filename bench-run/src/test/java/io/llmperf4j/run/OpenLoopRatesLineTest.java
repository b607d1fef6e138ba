package io.llmperf4j.run;

import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.OpenLoopSettings;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The open loop's "Rates:" line never prints a bare '-' (the QA: "Rates: scheduled - req/s, sent - req/s" when a
 * cluster lost a load worker, whose merge leaves both rates unknown, NaN, as the result here is built): it prints
 * what is known, the planned rate, with the reason the others are missing, and why arrivals were not sent.
 */
class OpenLoopRatesLineTest {

    private static OpenLoopResult result(int arrivals, int sent, double scheduled, double achieved) {
        OpenLoopSettings settings = OpenLoopSettings.builder(16).maxRequests(arrivals).build();
        return new OpenLoopResult(List.of(), List.of(), List.of(), 0, 10_000, 10_000_000_000L, 0, sent, false, false,
                settings, 0, arrivals, arrivals - sent, 0, scheduled, achieved);
    }

    /** The merge of a cluster that lost a worker: 240 scheduled, 170 sent, both rates unknown. */
    @Test
    void aLostWorkersUnknownRatesAreSaidWithThePlannedOne() {
        String text = LoadConsole.openLoop(result(240, 170, Double.NaN, Double.NaN), false);
        assertTrue(text.contains("Rates: scheduled and sent rates not known: a load worker was lost, its share of "
                + "the schedule untold (planned 16 req/s), completed 0.00 req/s\n"), text);
        assertTrue(text.contains("Warning: 70 of the 240 arrivals were not sent: the load worker that was to send "
                + "them was lost\n"), text);
        assertFalse(text.contains(" - req/s"), text);
    }

    /** One arrival has no rate between arrivals, nor one send between sends: said, not '-'. */
    @Test
    void aSingleArrivalHasNoRateAndSaysWhy() {
        String text = LoadConsole.openLoop(result(1, 1, Double.NaN, Double.NaN), false);
        assertTrue(text.contains("Rates: scheduled rate none (1 arrival; planned 16 req/s), sent rate none (1 sent: "
                + "a rate needs two), completed"), text);
        String known = LoadConsole.openLoop(result(50, 50, 15.87, 15.91), false);
        assertTrue(known.contains("Rates: scheduled 15.87 req/s, sent 15.91 req/s, completed"), known);
    }
}
