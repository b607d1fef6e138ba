package io.llmperf4j.engine.harness;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.engine.testserver.TokStreamServer;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each window counts the server's tokens that arrived inside it, whatever became of their request: finished (with
 * usage), cut at the fork's end (no usage) or failed mid-stream (no usage). The server writes one token per event,
 * the word "tok", so the tokens a window received are the content events that arrived in it. The QA's last window
 * lost the cut requests' tokens with {@code --tokenizer server} (no client count: 0 each) and doubled them with
 * llama-2 (which counts "tok" as 2 tokens): 132 and 182.7 tok/s where the server wrote 158 and 162.7.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WindowTokensOfCutRequestsTest {

    private static final int TOKENS = 16;
    private static final long GAP_MS = 20;
    /** The first request's tokens: it streams past the fork's end, which cuts it in the last window. */
    private static final int LONG_TOKENS = 100;
    /** Every fourth request the server breaks off after this many tokens (a stream that failed mid-way). */
    private static final int BROKEN_AFTER = 5;
    private static final long MS = 1_000_000L;

    private TokStreamServer.Running server;

    /**
     * 16 tokens (the first request 100), one an event 20 ms apart, then usage; every fourth request broken off after
     * 5 tokens.
     */
    @BeforeEach
    void start() throws IOException {
        warmTheClientsPath();
        server = new TokStreamServer(n -> n == 1 ? LONG_TOKENS : TOKENS, 1, Duration.ofMillis(GAP_MS),
                n -> n % 4 == 0, BROKEN_AFTER).start();
    }

    /**
     * One request streamed to end, by a client of its own against a server of its own, before the fork: a run's
     * {@code ClientWarmup} (bench-run) does this for the product. In a cold JVM the fork's first send builds its
     * request (the JSON body's classes) after the fork's clock started: 1.6 s on an idle 2-core machine, 3.7 to 6.6 s
     * beside 3 busy loops, past the 1.5-s fork. Its deadline then cancelled that one request 20 to 400 ms after it
     * went out, with no event yet, and the other slots never sent (4 of 6 fresh-JVM runs failed so). Once warm, a
     * build takes about a millisecond.
     */
    private static void warmTheClientsPath() throws IOException {
        try (TokStreamServer.Running warm = new TokStreamServer(n -> 2, 1, Duration.ZERO, n -> false, 0).start();
             NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(
                     EndpointUrls.chatCompletions(warm.baseUrl()), "m").build())) {
            RequestRecord record = client.send(new RequestSpec(0, "hello", 1, 2)).completion().join();
            assertTrue(record.succeeded(), () -> "the warm-up request failed: " + record.failure());
        }
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void withoutAClientCountTheCutAndBrokenRequestsCountTheTokensTheyReceived() {
        // --tokenizer server: the client never counts output (the run's placeholder counter)
        assertEveryWindowCountsTheTokensThatArrivedInIt(text -> -1);
    }

    @Test
    void aClientTokenizerThatCountsTheServersWordAsTwoDoesNotDoubleTheCutRequests() {
        // llama-2 on this server's text: "tok" is 2 tokens, plus the BOS
        assertEveryWindowCountsTheTokensThatArrivedInIt(
                text -> 1 + 2 * (int) text.chars().filter(c -> c == 't').count());
    }

    private void assertEveryWindowCountsTheTokensThatArrivedInIt(TokenCounter counter) {
        java.net.URI url = EndpointUrls.chatCompletions(server.baseUrl());
        HarnessRunner runner = new HarnessRunner(() -> new NettyLlmClient(ClientConfig.builder(url, "m")
                .maxConnections(8).build()), counter, OutputTokenPolicy.DEFAULT);
        List<RequestSpec> specs = List.of(new RequestSpec(0, "hello", 1, TOKENS));
        // 1 warmup + 2 measured windows of 0.5 s; the first request streams for 2 s, so the fork's end cuts it
        HarnessResult result = runner.run("cut", Map.of(), specs, new ClosedLoopSettings(4, Duration.ofMinutes(1)),
                HarnessSettings.of(1, Duration.ofMillis(500), 2, Duration.ofMillis(500), 1), null);

        ForkResult fork = result.forks().get(0);
        List<IterationResult> windows = new java.util.ArrayList<>(fork.warmup());
        windows.addAll(fork.measurement());
        double[] arrived = eventsPerWindow(fork.load().timeline(), windows);
        for (int k = 0; k < windows.size(); k++) {
            assertEquals(arrived[k], windows.get(k).outputTokens(), 1e-9, "window " + k);
        }
        // the case at stake took place: requests cut at the end and broken mid-stream delivered tokens counted here
        IterationResult last = fork.measurement().get(1);
        assertTrue(deliveredInside(fork.load().timeline(), last, FailureKind.CANCELLED) > 0,
                () -> "no request cut at the fork's end delivered a token in the last window: " + describe(fork));
        assertTrue(fork.load().timeline().stream().anyMatch(r -> !r.record().succeeded()
                        && r.record().failure().kind() != FailureKind.CANCELLED
                        && r.record().contentEventNanos().length == BROKEN_AFTER),
                "no stream broken off mid-way");
    }

    private static String describe(ForkResult fork) {
        StringBuilder b = new StringBuilder("end " + fork.load().endOffsetNanos() / MS + " ms;");
        for (ScheduledRecord r : fork.load().timeline()) {
            RequestRecord rec = r.record();
            b.append(' ').append(r.actualSendOffsetNanos() / MS).append('+').append(rec.e2eNanos() / MS)
                    .append(rec.succeeded() ? "" : ":" + rec.failure().kind()).append('/')
                    .append(rec.contentEventNanos().length);
        }
        return b.toString();
    }

    /** The content events (one server token each) that arrived inside each window. */
    private static double[] eventsPerWindow(List<ScheduledRecord> timeline, List<IterationResult> windows) {
        double[] counts = new double[windows.size()];
        for (ScheduledRecord r : timeline) {
            for (long e : r.record().contentEventNanos()) {
                long t = r.actualSendOffsetNanos() + e;
                for (int k = 0; k < windows.size(); k++) {
                    if (inside(windows.get(k), t)) counts[k]++;
                }
            }
        }
        return counts;
    }

    private static long deliveredInside(List<ScheduledRecord> timeline, IterationResult window, FailureKind kind) {
        long n = 0;
        for (ScheduledRecord r : timeline) {
            RequestRecord rec = r.record();
            if (rec.succeeded() || rec.failure().kind() != kind) continue;
            for (long e : rec.contentEventNanos()) if (inside(window, r.actualSendOffsetNanos() + e)) n++;
        }
        return n;
    }

    private static boolean inside(IterationResult window, long t) {
        return t >= window.startOffsetNanos() && t < window.startOffsetNanos() + window.durationNanos();
    }
}
