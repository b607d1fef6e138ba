package io.llmperf4j.report.metrics;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SloObjectivesTest {

    @Test
    void bothKindsCombine() {
        SloObjectives s = SloObjectives.parse("ttft_p99<=500ms, tpot_p90<=50ms,itl_p99<=100ms,e2e_p95<=20s,"
                + "error_rate<=1%,ttft<=400ms@99%");
        assertEquals(List.of("ttft_p99<=500ms", "tpot_p90<=50ms", "itl_p99<=100ms", "e2e_p95<=20000ms",
                "error_rate<=1%", "ttft<=400ms@99%"), s.objectives().stream().map(SloObjective::key).toList());
        SloObjective.Percentile p = (SloObjective.Percentile) s.objectives().get(0);
        assertEquals(SloMetric.TTFT, p.metric());
        assertEquals(99.0, p.percentile());
        assertEquals(Duration.ofMillis(500), p.bound());
        assertEquals(0.01, ((SloObjective.ErrorRate) s.objectives().get(4)).maxRate(), 1e-12);
        assertEquals(0.99, ((SloObjective.Attainment) s.objectives().get(5)).target(), 1e-12);
        // goodput: the tightest per-request bound of each metric
        assertEquals(new Slo(Duration.ofMillis(400), Duration.ofMillis(50), Duration.ofSeconds(20)), s.goodput());
    }

    @Test
    void theGoodputFormStaysAndWinsForItsMetric() {
        SloObjectives s = SloObjectives.parse("ttft=200ms,tpot:50,ttft_p99<=500ms");
        assertEquals(new Slo(Duration.ofMillis(200), Duration.ofMillis(50), null), s.goodput());
        assertEquals(1, s.objectives().size());
        assertNull(SloObjectives.parse("error_rate<=1%").goodput());
        assertEquals(Duration.ofNanos(99_900_000), ((SloObjective.Percentile) SloObjectives.parse("e2el_p99.9<=99.9")
                .objectives().get(0)).bound());
    }

    @Test
    void badTermsSayWhatIsWrongAndTheForms() {
        for (String[] c : new String[][]{
                {"ttft=abc", "'abc' is not like 500ms"},
                {"latency_p99<=5ms", "'latency' is not ttft, tpot, itl or e2e"},
                {"ttft_p100<=5ms", "between 0 and 100"},
                {"error_rate<=0.01", "a percentage"},
                {"ttft<=5ms@0%", "attainment in (0%, 100%]"},
                {"ttft_p99<=0ms", "a limit > 0"},
                {"ttft_p99<=-5ms", "a limit > 0"},
                {"ttft<=-5ms@99%", "a limit > 0"},
                {"ttft_p99<=5ms,ttft_p99<=5ms", "twice"},
                {"itl=5ms", "no per-request goodput bound"},
                {"ttft_p99<5ms", "not a term"},
                {"ttft_p99<=500mss", "has an unknown unit 'mss' (units ns, us (µs), ms, s; a bare number is ms)"},
                {"ttft<=2min@99%", "has an unknown unit 'min'"},
                {"e2e=3sec", "has an unknown unit 'sec'"}}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SloObjectives.parse(c[0]));
            assertTrue(e.getMessage().contains(c[1]), c[0] + ": " + e.getMessage());
            assertTrue(!e.getMessage().contains("\n"), "one line");
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SloObjectives.parse("ttft=abc")).getMessage()
                .contains("ttft=500ms (goodput bound)"), "the documented form is in the message");
    }
}
