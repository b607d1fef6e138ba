package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.testserver.TimedSseServer;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An open loop whose client falls behind its own schedule while the server answers at once: the real runner over
 * real sockets, the pacer made late through the runner's {@link OpenLoopRunner#beforeEachSend} seam (100 ms before
 * every send, against arrivals 50 ms apart), so the sends go out at about half the scheduled rate whatever the
 * machine's load. Judged from the intended sends the level falls behind; judged from the actual sends it keeps up:
 * the verdict must blame the client, not the service (ClientLagJudge's rule, as the capacity search reads it). A
 * capped level whose lag was the wait for a slot ({@link CapWaits}) must blame neither: it says the cap.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientBehindKeepUpSocketTest {

    private static final int ARRIVALS = 30;

    @Test
    void anUncappedLevelOnlyTheClientsLagFailedSaysTheClientFellBehind() throws IOException {
        LevelSummary s = level(OptionalInt.empty());
        KeepUp fit = s.keepUp();
        assertNotNull(fit);
        assertNotNull(fit.actualSend(), "an uncapped open loop is fitted from its actual sends too");
        assertEquals(KeepUp.Reading.FELL_BEHIND, fit.withActualSend(null).reading(0.95), "from the intended sends");
        assertEquals(KeepUp.Reading.KEPT_UP, fit.actualSend().fit().reading(0.95), "from the actual sends");
        assertEquals(KeepUp.Reading.CLIENT_BEHIND, fit.reading(0.95));

        String line = SaturationVerdict.keptUpLine(s, SaturationRules.DEFAULT).orElseThrow();
        String lag = String.format(Locale.ROOT, "send lag p90 %.1f ms, p99 %.1f ms",
                fit.actualSend().sendLagP90Millis(), fit.actualSend().sendLagP99Millis());
        assertTrue(line.startsWith("Kept up: the client fell behind its schedule, not the service: it sent late ("
                + lag + "): from the intended sends its successes ended at " + String.format(Locale.ROOT, "%.1f %%",
                100 * fit.share()) + " of the scheduled rate, 95 % interval " + fit.interval() + "; from the actual "
                + "sends at " + String.format(Locale.ROOT, "%.1f %%", 100 * fit.actualSend().fit().share())
                + ", 95 % interval " + fit.actualSend().fit().interval()), line);
        assertTrue(line.endsWith(", at or above the threshold 95.0 % (SENT_LATE says how late)"), line);
        assertFalse(line.contains("BEHIND_SCHEDULE"), line);
        assertFalse(line.startsWith("Kept up: no"), line);

        SaturationVerdict v = SaturationVerdict.evaluate(List.of(s), SaturationRules.DEFAULT, "rate");
        SaturationVerdict.LevelVerdict l = v.levels().get(0);
        assertEquals(KeepUp.Reading.CLIENT_BEHIND, l.keptUp());
        assertFalse(l.saturated(), "the service did not fall behind: no saturation point, no BEHIND_SCHEDULE");
        assertTrue(v.saturationIndex().isEmpty());
        assertTrue(v.kneeIndex().isEmpty());
        List<String> lines = v.describe("rate");
        assertEquals("saturation point: none found (no judged level's service fell behind its offer with confidence; "
                + "the client fell behind its schedule at one: see below)", lines.get(0));
        assertTrue(lines.stream().anyMatch(x -> x.startsWith("client behind: rate 20 req/s: the client fell behind "
                + "its schedule, not the service: it sent late (" + lag + "): from the intended sends ")
                && x.endsWith("; not a saturation point nor a knee: run the client on a quieter machine or lower the "
                + "rate")), lines.toString());
    }

    /**
     * With a cap that never fills (the server answers at once, one request in flight at a time), the lag is still the
     * client's pacer: the client is blamed, not the cap (before, a capped level was judged from its intended sends
     * alone: "Kept up: no", BEHIND_SCHEDULE).
     */
    @Test
    void aCappedLevelWhoseCapNeverFilledBlamesTheClient() throws IOException {
        LevelSummary s = level(OptionalInt.of(8));
        assertNotNull(s.keepUp().actualSend());
        assertEquals(0, s.keepUp().actualSend().heldAtCap());
        assertEquals(KeepUp.Reading.CLIENT_BEHIND, s.keepUp().reading(0.95));
        String line = SaturationVerdict.keptUpLine(s, SaturationRules.DEFAULT).orElseThrow();
        assertTrue(line.startsWith("Kept up: the client fell behind its schedule, not the service: "), line);
    }

    /**
     * A cap of 1 in front of a server that takes at least 150 ms a request, against arrivals 50 ms apart, and a pacer
     * on time: every arrival after the first waits for the one slot, so the sends go out at a third of the schedule's
     * rate or less whatever the machine's load, and the server keeps pace with what it is sent. The lag is the cap's:
     * neither the service falling behind (BEHIND_SCHEDULE, the saturation point) nor the client.
     */
    @Test
    void aCappedLevelWhoseLagWasTheWaitForASlotSaysTheCap() throws IOException {
        LevelSummary s = level(OptionalInt.of(1), Duration.ofMillis(150), false);
        KeepUp fit = s.keepUp();
        assertNotNull(fit.actualSend());
        assertEquals(1, fit.actualSend().heldAtCap());
        assertEquals(KeepUp.Reading.FELL_BEHIND, fit.withActualSend(null).reading(0.95), "from the intended sends");
        assertEquals(KeepUp.Reading.KEPT_UP, fit.actualSend().fit().reading(0.95), "from the actual sends");
        assertEquals(KeepUp.Reading.AT_CAP, fit.reading(0.95));

        String line = SaturationVerdict.keptUpLine(s, SaturationRules.DEFAULT).orElseThrow();
        String lag = String.format(Locale.ROOT, "send lag p90 %.1f ms, p99 %.1f ms",
                fit.actualSend().sendLagP90Millis(), fit.actualSend().sendLagP99Millis());
        assertTrue(line.startsWith("Kept up: held at the cap: sent late because 1 request was in flight at the cap "
                + "(--max-concurrency 1; " + lag + "): from the intended sends its successes ended at "
                + String.format(Locale.ROOT, "%.1f %%", 100 * fit.share()) + " of the scheduled rate, 95 % interval "
                + fit.interval() + "; from the actual sends at " + String.format(Locale.ROOT, "%.1f %%",
                100 * fit.actualSend().fit().share()) + ", 95 % interval " + fit.actualSend().fit().interval()
                + ": the service kept pace with what it was sent, 1 at a time, so the rate was the cap's"), line);
        assertTrue(line.endsWith("; threshold 95.0 %: raise --max-concurrency to tell whether the service keeps up "
                + "with more in flight, or lower the rate (SENT_LATE says how late)"), line);
        assertFalse(line.contains("BEHIND_SCHEDULE") || line.contains("client fell behind"), line);

        SaturationVerdict v = SaturationVerdict.evaluate(List.of(s), SaturationRules.DEFAULT, "rate");
        assertEquals(KeepUp.Reading.AT_CAP, v.levels().get(0).keptUp());
        assertFalse(v.levels().get(0).saturated(), "not the service's saturation point: no BEHIND_SCHEDULE");
        assertTrue(v.saturationIndex().isEmpty());
        List<String> lines = v.describe("rate");
        assertEquals("saturation point: none found (no judged level's service fell behind its offer with confidence; "
                + "the --max-concurrency cap held back one: see below)", lines.get(0));
        assertTrue(lines.stream().anyMatch(x -> x.startsWith("at the cap: rate 20 req/s: sent late because 1 request "
                + "was in flight at the cap (--max-concurrency 1; ") && x.endsWith("; not a saturation point nor a "
                + "knee: raise --max-concurrency to tell whether the service keeps up with more in flight, or lower "
                + "the rate")), lines.toString());
    }

    private static LevelSummary level(OptionalInt cap) throws IOException {
        return level(cap, Duration.ZERO, true);
    }

    /** {@code latency}: the server's time to the first token; {@code latePacer}: 100 ms before every send. */
    private static LevelSummary level(OptionalInt cap, Duration latency, boolean latePacer) throws IOException {
        try (TimedSseServer server = TimedSseServer.start(latency, Duration.ZERO);
             NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(
                     EndpointUrls.chatCompletions(server.baseUrl()), "m").maxConnections(8).build())) {
            OpenLoopRunner runner = new OpenLoopRunner(client, String::length);
            if (latePacer) runner.beforeEachSend(i -> sleepMillis(100)); // the pacer kept from its schedule
            OpenLoopSettings.Builder b = OpenLoopSettings.builder(20).arrival(Arrival.constant())
                    .maxRequests(ARRIVALS).warmup(Warmup.none()).timeout(Duration.ofSeconds(40));
            cap.ifPresent(b::maxConcurrency);
            OpenLoopResult result = runner.run(specs(), b.build());
            assertEquals(ARRIVALS, result.records().size());
            assertTrue(result.records().stream().allMatch(RequestRecord::succeeded), result.records().toString());
            return LevelSummary.of(result, OutputTokens.SERVER_USAGE_ELSE_CLIENT);
        }
    }

    private static List<RequestSpec> specs() {
        return IntStream.range(0, 4).mapToObj(i -> new RequestSpec(i, "prompt " + i, 10, 5)).toList();
    }

    private static void sleepMillis(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
