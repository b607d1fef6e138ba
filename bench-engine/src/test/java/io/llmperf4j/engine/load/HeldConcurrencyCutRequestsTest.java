package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.testserver.TokStreamServer;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sweep level's held window counts a request broken off mid-stream (no usage) as the summary's
 * {@code output_tokens_delivered} and the iterations count it: each content event it received at the server's tokens
 * per content event. The server here writes 2 tokens per event by its usage (16 events "tok ", usage 32), and breaks
 * every third stream off after 5 events. So every content event inside the window is 2 tokens, whatever became of
 * its request. Before, the held figure counted a broken request's client count spread over its events: nothing with
 * {@code --tokenizer server}, 1 per event with a tokenizer that counts "tok" as one token.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HeldConcurrencyCutRequestsTest {

    private static final int EVENTS = 16;
    private static final int SERVER_TOKENS_PER_EVENT = 2;
    private static final int BROKEN_AFTER = 5;
    private static final int CONCURRENCY = 4;
    private static final int REQUESTS = 24;

    private TokStreamServer.Running server;

    /** 16 events "tok " 5 ms apart, then usage 32; every third request broken off after 5 events. */
    @BeforeEach
    void start() throws IOException {
        server = new TokStreamServer(n -> EVENTS, SERVER_TOKENS_PER_EVENT, Duration.ofMillis(5), n -> n % 3 == 0,
                BROKEN_AFTER).start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void withoutAClientCountABrokenRequestCountsTheServersTokensPerEvent() {
        // --tokenizer server: the client never counts output (before: the broken requests counted nothing)
        assertEveryEventInTheWindowCountsTheServersRate(text -> -1);
    }

    @Test
    void aClientCountInAnotherUnitDoesNotStandForTheServersTokens() {
        // counts "tok" as 1, plus a BOS (before: a broken request counted 1 per event, the server wrote 2)
        assertEveryEventInTheWindowCountsTheServersRate(text -> 1 + text.split("tok", -1).length - 1);
    }

    private void assertEveryEventInTheWindowCountsTheServersRate(TokenCounter counter) {
        URI url = EndpointUrls.chatCompletions(server.baseUrl());
        List<RequestSpec> specs = IntStream.range(0, REQUESTS).mapToObj(i -> new RequestSpec(i, "hello", 1, EVENTS))
                .toList();
        SweepResult sweep;
        try (NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(url, "m").maxConnections(8).build())) {
            sweep = new Sweep(client, counter, OutputTokenPolicy.DEFAULT).run(specs, new SweepPlan(
                    List.of(new ClosedLoopSettings(CONCURRENCY, Duration.ofMinutes(1))), Duration.ZERO));
        }
        SweepLevelResult level = sweep.levels().get(0);
        LoadResult result = level.result();
        HeldConcurrency held = level.summary().held();
        assertNotNull(held, "a closed loop of streamed answers holds its concurrency");

        // the window by its definition: from the c-th send to the (L - c + 1)-th end
        long[] sends = result.timeline().stream().mapToLong(ScheduledRecord::actualSendOffsetNanos).sorted().toArray();
        long[] ends = result.timeline().stream().mapToLong(ScheduledRecord::endOffsetNanos).sorted().toArray();
        long from = Math.max(result.measureStartOffsetNanos(), sends[CONCURRENCY - 1]);
        long to = ends[ends.length - CONCURRENCY];
        assertEquals((to - from) / 1e9, held.seconds(), 1e-12);

        long events = 0;
        long ofBroken = 0;
        for (ScheduledRecord r : result.timeline()) {
            RequestRecord rec = r.record();
            long inside = Arrays.stream(rec.contentEventNanos()).map(e -> r.actualSendOffsetNanos() + e)
                    .filter(t -> t >= from && t <= to).count();
            events += inside;
            if (!rec.succeeded()) ofBroken += inside;
        }
        // the case at stake took place: streams broken off without usage delivered events inside the window
        assertTrue(ofBroken > 0, "no broken stream delivered an event inside the held window");
        assertTrue(result.timeline().stream().map(ScheduledRecord::record).filter(rec -> !rec.succeeded())
                .allMatch(rec -> rec.usageCompletionTokens() == null
                        && rec.contentEventNanos().length == BROKEN_AFTER), "broken streams carry no usage");
        assertEquals(SERVER_TOKENS_PER_EVENT * events, held.tokens(), 1e-9,
                "every event inside the window counts the server's " + SERVER_TOKENS_PER_EVENT + " tokens; "
                        + ofBroken + " of " + events + " from broken streams");
        assertEquals(held.tokens() / held.seconds(), held.tokensPerSecond(), 1e-9);
    }
}
