package io.llmperf4j.report.metrics;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.FailureCause;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestPhases;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.ServerGone;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class RequestMetricsTest {

    /**
     * A server killed during the prefill: two streams had their 200 and headers, no token, then the port refused.
     * Read back from files, the refusals are the server going away as the records' own reading says
     * ({@link io.llmperf4j.model.FailureCause#of(List)}), and the REQUESTS_FAILED warning words it so (QA: the
     * headers did not count, so they read "configuration").
     */
    @Test
    void responseHeadersWithoutContentAreTheServersAnswerInEveryReading() {
        long t0 = io.llmperf4j.report.testutil.Records.START_EPOCH_MICROS;
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            records.add(request(i).start(t0).failed(FailureKind.CONNECTION_CLOSED, -1, "closed mid-stream after 0 "
                    + "events").e2e(600 * MS).build().withPhases(new RequestPhases(MS, -1, 2 * MS, 4 * MS)));
        }
        for (int i = 2; i < 8; i++) {
            records.add(request(i).start(t0 + 700_000 + i).failed(FailureKind.CONNECT_FAILED, -1,
                    "Connection refused").e2e(MS).build());
        }
        List<RequestMetrics> metrics = records.stream().map(r -> RequestMetrics.from(r, TokenCounting.DEFAULT))
                .toList();
        assertEquals(4 * MS, metrics.get(0).responseHeadersNanos().getAsLong());
        assertFalse(metrics.get(2).responseHeadersNanos().isPresent());
        List<FailureCause> causes = RequestMetrics.failureCauses(metrics);
        assertEquals(FailureCause.of(records), causes);
        assertEquals(Collections.nCopies(6, FailureCause.SERVER_UNAVAILABLE), causes.subList(2, 8));
        assertEquals(Optional.of(new ServerGone(t0 + 700_002, 0, 2)), RequestMetrics.serverGone(metrics));
        assertEquals(ServerGone.of(records), RequestMetrics.serverGone(metrics));
        String words = RunWarnings.failureCause(metrics);
        assertTrue(words.startsWith("6 point at the server going away: the server stopped accepting connections at "),
                words);
        assertTrue(words.contains("before any request succeeded but after it had begun answering 2 requests"), words);
        assertFalse(words.contains("check the configuration"), words);
    }

    /**
     * An error event inside a 200 stream after tokens (content, or reasoning alone) is the server failing while
     * serving, whatever its code (vLLM says 400 for any exception in its generator); as the stream's first event a
     * 4xx is the request refused, the configuration's. The records' reading and the one of the metrics read back
     * from files agree (QA s44: "3x 400 vLLM engine error": "check the configuration").
     */
    @Test
    void anErrorInTheStreamAfterTokensIsTheServersWhateverItsCodeInEveryReading() {
        List<RequestRecord> records = List.of(
                request(0).evenEvents(100 * MS, 10 * MS, 2).failed(FailureKind.ERROR_IN_STREAM, 400,
                        "vLLM engine error").e2e(130 * MS).build(),
                request(1).reasoning(60 * MS).failed(FailureKind.ERROR_IN_STREAM, 400, "vLLM engine error")
                        .e2e(130 * MS).build(),
                request(2).failed(FailureKind.ERROR_IN_STREAM, 400, "prompt too long").e2e(20 * MS).build(),
                request(3).evenEvents(100 * MS, 10 * MS, 2).failed(FailureKind.ERROR_IN_STREAM, -1, "overloaded")
                        .e2e(130 * MS).build(),
                request(4).evenEvents(100 * MS, 10 * MS, 2).failed(FailureKind.HTTP_STATUS, 400, "odd").e2e(130 * MS)
                        .build());
        List<RequestMetrics> metrics = records.stream().map(r -> RequestMetrics.from(r, TokenCounting.DEFAULT))
                .toList();
        List<FailureCause> causes = RequestMetrics.failureCauses(metrics);
        assertEquals(List.of(FailureCause.CAPACITY, FailureCause.CAPACITY, FailureCause.CONFIGURATION,
                FailureCause.OTHER, FailureCause.CONFIGURATION), causes);
        assertEquals(FailureCause.of(records), causes);
    }

    @Test
    void knownOffsetsGiveExactTtftTpotAndItl() {
        // content at 200, 230, 250, 290 ms; response ends at 300 ms; the server counted 5 output tokens
        RequestMetrics m = RequestMetrics.from(request(0).events(200 * MS, 230 * MS, 250 * MS, 290 * MS)
                .e2e(300 * MS).usage(512, 5).client(6).build(), TokenCounting.DEFAULT);

        assertEquals(200 * MS, m.ttftNanos().getAsLong());
        assertEquals(300 * MS, m.e2eNanos());
        // (300 - 200) ms / (5 - 1)
        assertEquals(25.0 * MS, m.tpotNanos().getAsDouble());
        assertArrayEquals(new long[] {30 * MS, 20 * MS, 40 * MS}, m.itlNanos());
        assertEquals(4, m.contentEvents());
        assertEquals(5, m.outputTokens().getAsInt());
        assertEquals(TokenSource.SERVER_USAGE, m.outputTokenSource());
        assertEquals(5, m.clientOutputTokens().getAsInt()); // 6 with BOS
        assertEquals(5.0 / 0.3, m.outputTokensPerSecond().getAsDouble(), 1e-12);
        assertEquals(512, m.inputTokens());
        assertEquals(TokenSource.SERVER_USAGE, m.inputTokenSource());
        assertTrue(m.succeeded());
    }

    @Test
    void evenlySpacedEventsGiveItlDPerEventAndTpotD() {
        long ttft = 120 * MS;
        long d = 15 * MS;
        int events = 50;
        long last = ttft + (events - 1) * d;
        // one token per event, the response ends with the last content event
        RequestMetrics m = RequestMetrics.from(request(1).evenEvents(ttft, d, events).e2e(last)
                .usage(100, events).build(), TokenCounting.DEFAULT);

        assertEquals(events - 1, m.itlCount());
        for (long gap : m.itlNanos()) assertEquals(d, gap);
        assertEquals((double) d, m.tpotNanos().getAsDouble());

        // a 7 ms tail after the last event (finish chunk, usage chunk, [DONE]) is spread over the n - 1 tokens
        RequestMetrics withTail = RequestMetrics.from(request(1).evenEvents(ttft, d, events).e2e(last + 7 * MS)
                .usage(100, events).build(), TokenCounting.DEFAULT);
        assertEquals(d + 7.0 * MS / (events - 1), withTail.tpotNanos().getAsDouble(), 1e-6);
        for (long gap : withTail.itlNanos()) assertEquals(d, gap);
    }

    @Test
    void withoutUsageTheClientCountLosesItsBos() {
        RequestMetrics m = RequestMetrics.from(request(2).evenEvents(100 * MS, 10 * MS, 150).e2e(1_600 * MS)
                .client(151).build(), TokenCounting.DEFAULT);
        assertEquals(TokenSource.CLIENT_TOKENIZER, m.outputTokenSource());
        assertEquals(150, m.outputTokens().getAsInt());
        assertEquals(OptionalInt.empty(), m.serverOutputTokens());
        assertEquals((1_600 - 100) * MS / 149.0, m.tpotNanos().getAsDouble(), 1e-6);
        assertEquals(150 / 1.6, m.outputTokensPerSecond().getAsDouble(), 1e-9);
        // no usage: input tokens are the workload's reported count
        assertEquals(550, m.inputTokens());
        assertEquals(TokenSource.CLIENT_TOKENIZER, m.inputTokenSource());
    }

    @Test
    void aTokenizerWithoutBosSubtractsNothing() {
        RequestMetrics m = RequestMetrics.from(request(3).evenEvents(100 * MS, 10 * MS, 10).e2e(200 * MS)
                .client(10).build(), new TokenCounting(0, true));
        assertEquals(10, m.outputTokens().getAsInt());
    }

    @Test
    void preferringTheClientUsesItWhenCounted() {
        RequestMetrics m = RequestMetrics.from(request(4).evenEvents(100 * MS, 10 * MS, 10).e2e(200 * MS)
                .client(13).usage(40, 10).build(), new TokenCounting(1, false));
        assertEquals(TokenSource.CLIENT_TOKENIZER, m.outputTokenSource());
        assertEquals(12, m.outputTokens().getAsInt());
        assertEquals(550, m.inputTokens()); // client side preferred for input too
        // and falls back to the server when the client never counted
        RequestMetrics fallback = RequestMetrics.from(request(4).evenEvents(100 * MS, 10 * MS, 10).e2e(200 * MS)
                .usage(40, 10).build(), new TokenCounting(1, false));
        assertEquals(TokenSource.SERVER_USAGE, fallback.outputTokenSource());
        assertEquals(10, fallback.outputTokens().getAsInt());
    }

    @Test
    void undefinedValuesAreAbsentNotZero() {
        // one output token: no TPOT, but a TTFT and a rate
        RequestMetrics one = RequestMetrics.from(request(5).events(80 * MS).e2e(90 * MS).usage(10, 1).build(),
                TokenCounting.DEFAULT);
        assertTrue(one.tpotNanos().isEmpty());
        assertEquals(0, one.itlCount());
        assertEquals(80 * MS, one.ttftNanos().getAsLong());
        assertTrue(one.outputTokensPerSecond().isPresent());

        // no content at all: no TTFT, no TPOT, no ITL; BOS-only client count is 0 tokens, rate 0 tok/s
        RequestMetrics empty = RequestMetrics.from(request(6).events().e2e(500 * MS).client(1).build(),
                TokenCounting.DEFAULT);
        assertTrue(empty.ttftNanos().isEmpty());
        assertTrue(empty.tpotNanos().isEmpty());
        assertEquals(0, empty.itlCount());
        assertEquals(0, empty.outputTokens().getAsInt());
        assertEquals(0.0, empty.outputTokensPerSecond().getAsDouble());

        // no count anywhere
        RequestMetrics uncounted = RequestMetrics.from(request(7).evenEvents(100 * MS, 10 * MS, 5).e2e(200 * MS)
                .build(), TokenCounting.DEFAULT);
        assertEquals(TokenSource.NONE, uncounted.outputTokenSource());
        assertTrue(uncounted.outputTokens().isEmpty());
        assertTrue(uncounted.tpotNanos().isEmpty());
        assertTrue(uncounted.outputTokensPerSecond().isEmpty());
        assertEquals(4, uncounted.itlCount()); // event gaps need no token count
    }

    @Test
    void aResponseThatArrivedWholeHasNoTpotAndMissesATpotBound() {
        // --no-stream: the whole body at 400 ms is one content event, TTFT = E2E; 20 tokens by usage
        RequestMetrics whole = RequestMetrics.from(request(8).events(400 * MS).e2e(400 * MS).usage(10, 20)
                .reasoning(400 * MS).build(), TokenCounting.DEFAULT);
        assertTrue(whole.succeeded());
        assertEquals(400 * MS, whole.ttftNanos().getAsLong());
        assertTrue(whole.tpotNanos().isEmpty(), "no decode pace was seen: no TPOT, not 0");
        assertEquals(0, whole.itlCount());
        assertEquals(50.0, whole.outputTokensPerSecond().getAsDouble(), 1e-9);
        assertFalse(Slo.parse("tpot:1000").meetsTpot(whole), "a TPOT bound cannot be met by a TPOT never seen");
        assertFalse(Slo.parse("tpot:1000").isMetBy(whole));
        assertTrue(Slo.parse("e2e:1s").isMetBy(whole));
    }

    @Test
    void failuresKeepMeasuredTimesButNoDerivedRates() {
        RequestMetrics m = RequestMetrics.from(request(8).evenEvents(100 * MS, 10 * MS, 5).e2e(400 * MS).client(6)
                .failed(FailureKind.CONNECTION_CLOSED, -1, "reset").build(), TokenCounting.DEFAULT);
        assertFalse(m.succeeded());
        assertEquals(FailureKind.CONNECTION_CLOSED, m.failureKind());
        assertEquals(-1, m.failureCode());
        assertEquals(100 * MS, m.ttftNanos().getAsLong());
        assertEquals(4, m.itlCount());
        assertTrue(m.tpotNanos().isEmpty());
        assertTrue(m.outputTokensPerSecond().isEmpty());
        assertNull(m.finishReason());
    }

    @Test
    void fourTokenChunksGivePerTokenItlOfAQuarterGapAndTheSameTpot() {
        // 10 events 40 ms apart, 4 tokens each (the first event's 4 arrive with the first token)
        int[] four = new int[10];
        java.util.Arrays.fill(four, 4);
        RequestMetrics chunked = RequestMetrics.from(request(10).evenEvents(100 * MS, 40 * MS, 10).e2e(460 * MS)
                .usage(10, 40).client(41).eventTokens(four).build(), TokenCounting.DEFAULT);
        assertEquals(9, chunked.itlCount());
        for (long gap : chunked.itlNanos()) assertEquals(40 * MS, gap);
        assertEquals(36, chunked.itlPerTokenCount(), "4 samples for each of the 9 later events");
        for (double share : chunked.itlPerTokenNanos()) assertEquals(10.0 * MS, share);
        assertEquals(360.0 * MS / 39, chunked.tpotNanos().getAsDouble(), 1e-6);

        // the same 40 tokens one per event, 10 ms apart
        int[] one = new int[40];
        java.util.Arrays.fill(one, 1);
        RequestMetrics single = RequestMetrics.from(request(11).evenEvents(100 * MS, 10 * MS, 40).e2e(490 * MS)
                .usage(10, 40).client(41).eventTokens(one).build(), TokenCounting.DEFAULT);
        assertArrayEquals(java.util.Arrays.stream(single.itlNanos()).asDoubleStream().toArray(),
                single.itlPerTokenNanos(), "one token per event: per-token ITL = per-event ITL");
        assertEquals(10.0 * MS, single.tpotNanos().getAsDouble(), 1e-6);
    }

    @Test
    void perTokenItlCarriesTheGapOfEventsThatCompletedNoToken() {
        // events at 0, 10, 30, 60 ms completing 0, 2, 0, 3 tokens: the first token arrives at 10 ms; the event at
        // 30 ms completes nothing, so the one at 60 ms splits 50 ms over its 3 tokens
        assertArrayEquals(new double[] {50.0 / 3 * MS, 50.0 / 3 * MS, 50.0 / 3 * MS},
                RequestMetrics.perTokenItl(new long[] {0, 10 * MS, 30 * MS, 60 * MS}, new int[] {0, 2, 0, 3}), 1e-6);
        assertArrayEquals(new double[0], RequestMetrics.perTokenItl(new long[] {5 * MS}, new int[] {7}));
    }

    @Test
    void withoutTokensPerEventThereIsNoPerTokenItl() {
        // the client's count without per-event counts (a tokenizer without offsets), no usage
        RequestMetrics m = RequestMetrics.from(request(12).evenEvents(100 * MS, 10 * MS, 5).e2e(200 * MS)
                .client(6).build(), TokenCounting.DEFAULT);
        assertEquals(4, m.itlCount());
        assertEquals(0, m.itlPerTokenCount());
    }

    @Test
    void theServersCountGivesTheTokensPerEventWhenItIsTheRequestsCount() {
        // 5 events 10 ms apart, each 3 client tokens ("w12 " in Llama-2), the server's usage 5: one token per event
        RequestMetrics m = RequestMetrics.from(request(12).evenEvents(100 * MS, 10 * MS, 5).eventTokens(3, 3, 3, 3, 3)
                .e2e(200 * MS).usage(10, 5).client(16).build(), TokenCounting.DEFAULT);
        assertEquals(TokenSource.SERVER_USAGE, m.outputTokenSource());
        assertArrayEquals(new double[] {10 * MS, 10 * MS, 10 * MS, 10 * MS}, m.itlPerTokenNanos(), 1e-6);
        // usage 15: three per event, each gap split in three
        RequestMetrics three = RequestMetrics.from(request(12).evenEvents(100 * MS, 12 * MS, 3).e2e(200 * MS)
                .usage(10, 9).build(), TokenCounting.DEFAULT);
        assertArrayEquals(new double[] {4 * MS, 4 * MS, 4 * MS, 4 * MS, 4 * MS, 4 * MS}, three.itlPerTokenNanos(),
                1e-6);
        // the client's count (the server's not preferred): the client's tokens per event, as before
        RequestMetrics client = RequestMetrics.from(request(12).evenEvents(100 * MS, 10 * MS, 3).eventTokens(2, 1, 2)
                .e2e(200 * MS).usage(10, 3).client(6).build(), new TokenCounting(1, false));
        assertArrayEquals(new double[] {10 * MS, 5 * MS, 5 * MS}, client.itlPerTokenNanos(), 1e-6);
    }

    @Test
    void reasoningIsTimedApartFromTtft() {
        RequestMetrics m = RequestMetrics.from(request(13).reasoning(60 * MS).evenEvents(100 * MS, 10 * MS, 3)
                .e2e(200 * MS).usage(10, 8).build(), TokenCounting.DEFAULT);
        assertEquals(60 * MS, m.timeToFirstReasoningNanos().getAsLong());
        assertEquals(100 * MS, m.ttftNanos().getAsLong());
        RequestMetrics plain = RequestMetrics.from(request(14).evenEvents(100 * MS, 10 * MS, 3).e2e(200 * MS)
                .build(), TokenCounting.DEFAULT);
        assertTrue(plain.timeToFirstReasoningNanos().isEmpty());
    }

    @Test
    void tpotOfAReasoningRequestMatchesItsTokenCount() {
        // 4 reasoning tokens from 60 ms, then 4 content tokens from 100 ms, 10 ms apart; the response ends at 130 ms
        // the server counts all 8 tokens: decoding ran from the first reasoning token, (130 - 60) / 7 = 10 ms
        RequestMetrics byServer = RequestMetrics.from(request(15).reasoning(60 * MS).evenEvents(100 * MS, 10 * MS, 4)
                .e2e(130 * MS).usage(10, 8).build(), TokenCounting.DEFAULT);
        assertEquals(10.0 * MS, byServer.tpotNanos().getAsDouble(), 1e-6);
        // the client counts the 4 content tokens (+ BOS) it saw: (130 - 100) / 3 = 10 ms
        RequestMetrics byClient = RequestMetrics.from(request(15).reasoning(60 * MS).evenEvents(100 * MS, 10 * MS, 4)
                .e2e(130 * MS).client(5).build(), TokenCounting.DEFAULT);
        assertEquals(TokenSource.CLIENT_TOKENIZER, byClient.outputTokenSource());
        assertEquals(10.0 * MS, byClient.tpotNanos().getAsDouble(), 1e-6);
    }

    @Test
    void itlArrayIsACopy() {
        RequestMetrics m = RequestMetrics.from(request(9).evenEvents(100 * MS, 10 * MS, 3).e2e(200 * MS).build(),
                TokenCounting.DEFAULT);
        m.itlNanos()[0] = 42;
        assertEquals(10 * MS, m.itlNanos(0));
    }
}
