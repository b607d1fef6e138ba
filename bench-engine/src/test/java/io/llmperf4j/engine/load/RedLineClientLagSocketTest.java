package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.testserver.TimedSseServer;
import io.llmperf4j.model.Percentiles;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rate sweep's TTFT red line is judged on TTFT from the actual send, not moved by the client's own send lag: the
 * QA's --rate-sweep 2,4,6,12 sent rate 4's arrivals up to 111 ms late, which raised its TTFT p90 from the intended
 * send (the baseline) from 82.3 to 119.7 ms and put the red line at 12 where from the actual send it is at 6. Here
 * the baseline's pacer is made late through the runner's seam (200 ms before every send, arrivals 100 ms apart) in
 * front of a server that answers at once, and the next level's server takes 300 ms to its first token with the pacer
 * on time: from the intended send the baseline's TTFT p90 is its lag (seconds), so nothing jumps; from the actual
 * send the second level's is 300 ms over a baseline of a few, the red line.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedLineClientLagSocketTest {

    private static final int ARRIVALS = 30;

    @Test
    void theRedLineIsJudgedFromTheActualSendAndTheLaggedLevelSaysSo() throws IOException {
        OpenLoopResult lagged = level(10, Duration.ZERO, true);
        OpenLoopResult slow = level(20, Duration.ofMillis(300), false);
        LevelSummary baseline = LevelSummary.of(lagged, OutputTokens.SERVER_USAGE_ELSE_CLIENT);
        LevelSummary next = LevelSummary.of(slow, OutputTokens.SERVER_USAGE_ELSE_CLIENT);
        // the rows keep TTFT from the intended send
        assertTrue(baseline.ttftP90Millis() > 3 * next.ttftP90Millis(), baseline + " " + next);

        SaturationVerdict v = SaturationVerdict.evaluate(List.of(baseline, next), SaturationRules.DEFAULT, "rate");
        double ratio = fromSendP90(slow) / fromSendP90(lagged);
        assertEquals(ratio, v.levels().get(1).ttftP90Ratio(), 1e-9 * ratio, v.levels().toString());
        assertEquals(1, v.ttftRedLineIndex().orElse(-1), v.describe("rate").toString());
        List<String> lines = v.describe("rate");
        assertTrue(lines.contains(String.format(Locale.ROOT, "TTFT red line: rate 20 req/s (TTFT p90 from the actual "
                + "send %.1fx rate 10 req/s; threshold 3.0x)", ratio)), lines.toString());
        KeepUp.ActualSend lag = baseline.keepUp().actualSend();
        assertTrue(lines.contains(String.format(Locale.ROOT, "client lag: rate 10 req/s: its TTFT p90 from the intended "
                + "send, %.1f ms, carries the client's own send lag (p90 %.1f ms, p99 %.1f ms): %.1f ms from the "
                + "actual send; the red line compares TTFT from the actual send", baseline.ttftP90Millis(),
                lag.sendLagP90Millis(), lag.sendLagP99Millis(), fromSendP90(lagged))), lines.toString());
    }

    /** TTFT p90 from each success's start stamp, ms, as the summary counts it. */
    private static double fromSendP90(OpenLoopResult r) {
        return Percentiles.of(r.measuredTimeline().stream().filter(s -> s.record().succeeded())
                .mapToLong(s -> s.record().ttftNanos()).toArray(), 90) / 1e6;
    }

    /** {@code latency}: the server's time to the first token; {@code latePacer}: 200 ms before every send. */
    private static OpenLoopResult level(double rate, Duration latency, boolean latePacer) throws IOException {
        try (TimedSseServer server = TimedSseServer.start(latency, Duration.ZERO);
             NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(
                     EndpointUrls.chatCompletions(server.baseUrl()), "m").maxConnections(16).build())) {
            OpenLoopRunner runner = new OpenLoopRunner(client, String::length);
            if (latePacer) runner.beforeEachSend(i -> sleepMillis(200));
            OpenLoopResult result = runner.run(specs(), OpenLoopSettings.builder(rate).arrival(Arrival.constant())
                    .maxRequests(ARRIVALS).warmup(Warmup.none()).timeout(Duration.ofSeconds(40)).build());
            assertEquals(ARRIVALS, result.records().size());
            assertTrue(result.records().stream().allMatch(RequestRecord::succeeded), result.records().toString());
            return result;
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
