package io.llmperf4j.run;

import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopRunner;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The live line after the measured window ended, on a real run against the simulator: the token counter holds the
 * first record until every request was answered on the wire and a second more has passed (a slow tokenizer on
 * degenerate answers), so the records reach the line long after the window. The line says where the window ended (the run's
 * own window end, to the printed digit), gives the window's rate, not one falling with the time since, and how many
 * answers are still being counted.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProgressWindowEndTest {
    private static final LlmApi CHAT = ApiRegistry.get("openai").adapter(true, null);
    private static final int REQUESTS = 40;
    private static final Pattern LINE = Pattern.compile("llmperf4j: (\\d+)/" + REQUESTS + " requests done, 0 failed, "
            + "([0-9.]+) s, window ended at ([0-9.]+) s \\(([0-9.]+) req/s\\)(; counting tokens of (\\d+) answers?)?"
            + ", TTFT p50 [0-9.]+ ms");

    /** Holds its first call until {@link #release()}; counts one token a text. */
    private static final class HeldCounter implements TokenCounter {
        private final CountDownLatch held = new CountDownLatch(1);

        @Override
        public int count(String text) {
            try {
                held.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return 1;
        }

        void release() {
            held.countDown();
        }
    }

    @Test
    void afterTheWindowTheLineGivesItsEndAndRateAndWhatIsStillCounted() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProgressPrinter progress = new ProgressPrinter(new PrintStream(bytes, true, StandardCharsets.UTF_8),
                REQUESTS, false, "");
        long printerStart = System.nanoTime();
        progress.startClockAt(printerStart);
        HeldCounter counter = new HeldCounter();
        AtomicInteger answered = new AtomicInteger();
        CountDownLatch allAnswered = new CountDownLatch(1);
        // the printer as the run's listener, the test watching the wire ends it is told of
        RecordListener listener = new RecordListener() {
            @Override
            public void onRecord(RequestRecord record) {
                progress.onRecord(record);
            }

            @Override
            public void onMeasuredWireEnd(long nanoTime) {
                progress.onMeasuredWireEnd(nanoTime);
                if (answered.incrementAndGet() == REQUESTS) allAnswered.countDown();
            }

            @Override
            public void onSendingClosed(long nanoTime) {
                progress.onSendingClosed(nanoTime);
            }
        };
        ClosedLoopResult result;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(1)).build());
             NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(CHAT.endpoint(server.baseUrl()), "m")
                     .maxConnections(4).build(), CHAT)) {
            List<RequestSpec> specs = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) specs.add(new RequestSpec(i, "prompt " + i, 5, 4));
            Thread releaser = new Thread(() -> {
                try {
                    allAnswered.await();
                    // and a second more, so the first record's line is printed (plain: one a second) well after
                    long due = System.nanoTime() + 1_000_000_000L;
                    while (System.nanoTime() - due < 0) Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                counter.release();
            });
            releaser.start();
            result = new ClosedLoopRunner(client, counter).run(specs, new ClosedLoopSettings(4,
                    OptionalInt.of(REQUESTS), Duration.ofSeconds(60), Warmup.NONE,
                    ClosedLoopSettings.PromptOrder.SEND_ORDER), listener);
            releaser.join();
        }
        progress.finish();
        assertEquals(REQUESTS, result.records().stream().filter(RequestRecord::succeeded).count());
        double windowEndS = (result.clockStartNanos() + result.endOffsetNanos() - printerStart) / 1e9;
        String expectedEnd = String.format(Locale.ROOT, "%.1f", windowEndS);

        List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(2, lines.size(), "the first record's line (a second passed) and the last one's: " + lines);
        Matcher first = LINE.matcher(lines.get(0));
        assertTrue(first.matches(), lines.get(0));
        int done = Integer.parseInt(first.group(1));
        assertEquals(REQUESTS, done + Integer.parseInt(first.group(6)), "done and still counted make all: " + lines);
        assertEquals(expectedEnd, first.group(3), "the run's own window end: " + lines);
        double endS = Double.parseDouble(first.group(3));
        assertTrue(Double.parseDouble(first.group(2)) >= endS + 0.9, "a second after the window: " + lines.get(0));
        // the window's rate: its answers over its end (to the printed digits), not over the time since the start
        double rate = Double.parseDouble(first.group(4));
        assertEquals(REQUESTS / windowEndS, rate, 0.01 * rate + 0.01, lines.get(0));

        Matcher last = LINE.matcher(lines.get(1));
        assertTrue(last.matches(), lines.get(1));
        assertEquals(Integer.toString(REQUESTS), last.group(1));
        assertEquals(null, last.group(5), "nothing left to count: " + lines.get(1));
        assertEquals(first.group(3), last.group(3));
        assertEquals(first.group(4), last.group(4), "the rate stays the window's: " + lines);
    }
}
