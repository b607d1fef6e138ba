package io.llmperf4j.report.metrics;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.FailureKind;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class RequestMetricsTest {

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
    void itlArrayIsACopy() {
        RequestMetrics m = RequestMetrics.from(request(9).evenEvents(100 * MS, 10 * MS, 3).e2e(200 * MS).build(),
                TokenCounting.DEFAULT);
        m.itlNanos()[0] = 42;
        assertEquals(10 * MS, m.itlNanos(0));
    }
}
