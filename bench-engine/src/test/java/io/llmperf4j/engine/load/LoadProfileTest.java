package io.llmperf4j.engine.load;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LoadProfileTest {

    @Test
    void profilesExpandIntoOneSettingsPerLevel() {
        List<LoadSettings> closed = LoadProfile.closedLoop(8).withMaxRequests(100).levels(Warmup.requests(5));
        assertEquals(List.of(new ClosedLoopSettings(8, OptionalInt.of(100), LoadProfile.DEFAULT_TIMEOUT,
                Warmup.requests(5))), closed);

        List<LoadSettings> sweep = LoadProfile.concurrencySweep(List.of(1, 5, 10)).withRequestsPerLevel(50)
                .levels(Warmup.NONE);
        assertEquals(List.of(1.0, 5.0, 10.0), sweep.stream().map(LoadSettings::level).toList());
        assertEquals(OptionalInt.of(50), ((ClosedLoopSettings) sweep.get(2)).maxCompleted());

        LoadProfile.RateSweep rates = LoadProfile.rateSweep(List.of(1.0, 2.5), Duration.ofSeconds(30))
                .withArrival(Arrival.gamma(0.5)).withSeed(9).withMaxConcurrency(16);
        List<LoadSettings> open = rates.levels(Warmup.duration(Duration.ofSeconds(5)));
        OpenLoopSettings second = (OpenLoopSettings) open.get(1);
        assertEquals(2.5, second.requestsPerSecond());
        assertEquals(new Arrival.Gamma(0.5), second.arrival());
        assertEquals(9, second.seed());
        assertEquals(Optional.of(Duration.ofSeconds(30)), second.duration());
        assertEquals(OptionalInt.of(16), second.maxConcurrency());
        assertEquals(Warmup.duration(Duration.ofSeconds(5)), second.warmup());
        assertEquals("rate", rates.levelName());
        assertEquals(LoadProfile.DEFAULT_PAUSE, rates.pause());
        assertEquals(Duration.ZERO, LoadProfile.openLoop(3, 10).pause());
        assertEquals("{rate=2.5, arrival=gamma(k=0.5), maxConcurrency=16}", second.params().toString());
    }

    @Test
    void closedLoopsKeepTheirPromptOrderAtEveryLevel() {
        ClosedLoopSettings.PromptOrder sendOrder = ClosedLoopSettings.PromptOrder.SEND_ORDER;
        assertEquals(ClosedLoopSettings.PromptOrder.SLOT_STRIDE,
                ((ClosedLoopSettings) LoadProfile.closedLoop(2).levels(Warmup.NONE).get(0)).promptOrder());
        assertEquals(sendOrder, ((ClosedLoopSettings) LoadProfile.closedLoop(2).withPromptOrder(sendOrder)
                .withMaxRequests(5).withTimeout(Duration.ofSeconds(9)).levels(Warmup.NONE).get(0)).promptOrder());
        for (LoadSettings level : LoadProfile.concurrencySweep(List.of(1, 2)).withPromptOrder(sendOrder)
                .withRequestsPerLevel(4).withPause(Duration.ZERO).levels(Warmup.requests(1))) {
            assertEquals(sendOrder, ((ClosedLoopSettings) level).promptOrder());
        }
    }

    @Test
    void errorsNameTheValueAndTheRule() {
        assertEquals("rate (-1.0) must be > 0", message(() -> LoadProfile.openLoop(-1.0, Duration.ofSeconds(1))));
        assertEquals("concurrency (0) must be >= 1", message(() -> LoadProfile.closedLoop(0)));
        assertEquals("concurrencies[1] (0) must be >= 1", message(() -> LoadProfile.concurrencySweep(List.of(1, 0))));
        assertEquals("rates[2] (-3.0) must be > 0",
                message(() -> LoadProfile.rateSweep(List.of(1.0, 2.0, -3.0), Duration.ofSeconds(1))));
        assertEquals("rates must not be empty", message(() -> LoadProfile.rateSweep(List.of(), Duration.ofSeconds(1))));
        assertEquals("duration (PT-1S) must be > 0", message(() -> LoadProfile.openLoop(1, Duration.ofSeconds(-1))));
        assertEquals("maxRequests (0) must be >= 1", message(() -> LoadProfile.openLoop(1, 0)));
        assertEquals("pause (PT-1S) must be >= 0", message(() -> LoadProfile.concurrencySweep(List.of(1))
                .withPause(Duration.ofSeconds(-1))));
        assertEquals("rate (Infinity) must be finite; for a burst use a closed loop",
                message(() -> LoadProfile.openLoop(Double.POSITIVE_INFINITY, 5)));
    }

    private static String message(Runnable r) {
        return assertThrows(IllegalArgumentException.class, r::run).getMessage();
    }
}
