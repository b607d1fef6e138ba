package io.llmperf4j.server;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The plan is a pure function of seed, key and streaming: no server needed. */
class FaultPlanTest {

    @Test
    void noneNeverFails() {
        FaultPlan none = FaultPlan.none();
        assertTrue(none.isNone());
        for (long key = 0; key < 1000; key++) assertEquals(FaultKind.NONE, none.choose(key, true));
    }

    @Test
    void theSameSeedGivesTheSameChoicesAndAnotherSeedOthers() {
        FaultPlan plan = FaultPlan.random(0.5, 42);
        List<FaultKind> first = choices(plan, 500, true);
        assertEquals(first, choices(FaultPlan.random(0.5, 42), 500, true), "a pure function of the seed");
        assertNotEquals(first, choices(FaultPlan.random(0.5, 43), 500, true));
    }

    @Test
    void theRateAndTheWeightsShapeTheMix() {
        Map<FaultKind, Double> weights = new EnumMap<>(FaultKind.class);
        weights.put(FaultKind.HTTP_429, 3.0);
        weights.put(FaultKind.HTTP_503, 1.0);
        FaultPlan plan = FaultPlan.random(0.2, weights, 7);
        int n = 20_000;
        EnumMap<FaultKind, Integer> counts = new EnumMap<>(FaultKind.class);
        for (FaultKind kind : choices(plan, n, true)) counts.merge(kind, 1, Integer::sum);
        assertEquals(3, counts.size(), "only NONE and the two weighted kinds: " + counts);
        double faulty = n - counts.get(FaultKind.NONE);
        assertEquals(0.2, faulty / n, 0.02);
        assertEquals(0.75, counts.get(FaultKind.HTTP_429) / faulty, 0.04);
    }

    @Test
    void nonStreamingRequestsNeverGetMissingDone() {
        FaultPlan plan = FaultPlan.random(1.0, Map.of(FaultKind.MISSING_DONE, 1.0, FaultKind.HTTP_500, 1.0), 1);
        List<FaultKind> streamed = choices(plan, 200, true);
        assertTrue(streamed.contains(FaultKind.MISSING_DONE));
        List<FaultKind> whole = choices(plan, 200, false);
        assertTrue(whole.stream().allMatch(k -> k == FaultKind.HTTP_500), "re-drawn among applicable kinds");
        FaultPlan onlyMissingDone = FaultPlan.random(1.0, Map.of(FaultKind.MISSING_DONE, 1.0), 1);
        assertTrue(choices(onlyMissingDone, 50, false).stream().allMatch(k -> k == FaultKind.NONE));
    }

    @Test
    void aSequenceCyclesByArrivalOrder() {
        FaultPlan plan = FaultPlan.sequence(FaultKind.NONE, FaultKind.HTTP_429, FaultKind.MISSING_DONE);
        assertEquals(List.of(FaultKind.NONE, FaultKind.HTTP_429, FaultKind.MISSING_DONE, FaultKind.NONE,
                FaultKind.HTTP_429), choices(plan, 5, true));
        assertEquals(FaultKind.NONE, plan.choose(2, false), "missing_done does not apply to non-streaming");
        assertEquals(FaultKind.NONE, FaultPlan.sequence(FaultKind.NONE).choose(0, true));
        assertTrue(FaultPlan.sequence(FaultKind.NONE).isNone());
    }

    @Test
    void requestHashSelectionIsAFunctionOfTheKeyOnly() {
        FaultPlan plan = FaultPlan.random(0.5, 9).withSelection(FaultPlan.Selection.REQUEST_HASH);
        long hash = Hashing.fnv("/v1/chat/completions", io.netty.buffer.Unpooled.copiedBuffer(new byte[] {1, 2}));
        assertEquals(plan.choose(hash, true), plan.choose(hash, true));
        FaultPlan hashedSequence = FaultPlan.sequence(FaultKind.HTTP_400, FaultKind.HTTP_500)
                .withSelection(FaultPlan.Selection.REQUEST_HASH);
        assertEquals(hashedSequence.choose(hash, true), hashedSequence.choose(hash, true));
    }

    @Test
    void invalidPlansNameTheValueAndTheRule() {
        assertMessage("faultRate (1.5) must be within [0, 1]", () -> FaultPlan.random(1.5, 1));
        assertMessage("faultRate (-0.1) must be within [0, 1]", () -> FaultPlan.random(-0.1, 1));
        assertMessage("faultRate (NaN) must be within [0, 1]", () -> FaultPlan.random(Double.NaN, 1));
        assertMessage("weight of http_429 (-1.0) must be a finite number >= 0",
                () -> FaultPlan.random(0.5, Map.of(FaultKind.HTTP_429, -1.0), 1));
        assertMessage("weights must not contain none (faultRate sets the clean share)",
                () -> FaultPlan.random(0.5, Map.of(FaultKind.NONE, 1.0), 1));
        assertMessage("weights must give some fault kind a weight > 0 when faultRate (0.5) > 0",
                () -> FaultPlan.random(0.5, Map.of(FaultKind.STALL, 0.0), 1));
        assertMessage("sequence must not be empty", () -> FaultPlan.sequence(List.of()));
        assertMessage("stallDuration (PT-1S) must be within [0, PT24H]",
                () -> FaultPlan.none().withStallDuration(Duration.ofSeconds(-1)));
        assertMessage("oversizedEventBytes (0) must be within [1, 67108864]",
                () -> FaultPlan.none().withOversizedEventBytes(0));
    }

    @Test
    void headerValuesNameEveryKind() {
        for (FaultKind kind : FaultKind.values()) {
            assertEquals(kind, FaultKind.fromHeaderValue(kind.headerValue()));
            assertEquals(kind, FaultKind.fromHeaderValue(" " + kind.headerValue().toUpperCase() + " "));
        }
        assertEquals("drop_mid_stream", FaultKind.DROP_MID_STREAM.headerValue());
        assertEquals(429, FaultKind.HTTP_429.httpStatus());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FaultKind.fromHeaderValue("explode"));
        assertEquals("X-Sim-Fault (explode) must be one of none, http_400, http_401, http_403, http_404, http_429, "
                + "http_500, http_503, error_event, reset, drop_mid_stream, malformed_event, missing_done, stall, "
                + "oversized_event", e.getMessage());
    }

    private static List<FaultKind> choices(FaultPlan plan, int n, boolean stream) {
        List<FaultKind> kinds = new ArrayList<>();
        for (long key = 0; key < n; key++) kinds.add(plan.choose(key, stream));
        return kinds;
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable executable) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, executable);
        assertEquals(expected, e.getMessage());
    }
}
