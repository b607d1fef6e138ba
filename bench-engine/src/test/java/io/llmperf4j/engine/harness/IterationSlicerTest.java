package io.llmperf4j.engine.harness;

import io.llmperf4j.engine.load.OutputTokens;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.EventTokenCounts;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestRecord;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.llmperf4j.engine.harness.Fixtures.failure;
import static io.llmperf4j.engine.harness.Fixtures.load;
import static io.llmperf4j.engine.harness.Fixtures.record;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class IterationSlicerTest {

    private static final long S = 1_000_000_000L;
    private static final long MS = 1_000_000L;
    /** Windows: warmup [0, 1 s), measurement [1 s, 2 s) and [2 s, 3 s). */
    private static final HarnessSettings SETTINGS = HarnessSettings.of(1, Duration.ofSeconds(1), 2,
            Duration.ofSeconds(1), 1);

    private static ScheduledRecord at(long sendNanos, io.llmperf4j.model.RequestRecord r) {
        return new ScheduledRecord(r, 0, sendNanos, sendNanos, false);
    }

    private static final List<ScheduledRecord> TIMELINE = List.of(
            // 6 tokens (usage) over 3 events at 0.7, 1.1, 1.5 s; ends at 1.7 s
            at(500 * MS, record(200 * MS, 1000 * MS, 1200 * MS, new long[] {200 * MS, 600 * MS, 1000 * MS}, 6, 7,
                    null)),
            // a server failure ending at 1.3 s: counted as failed, no tokens
            at(1200 * MS, record(-1, -1, 100 * MS, new long[0], null, -1, failure(FailureKind.HTTP_STATUS))),
            // cancelled at the fork's end: 3 tokens (client count) over events at 2.7, 2.9, 3.1 s
            at(2500 * MS, record(200 * MS, 600 * MS, 700 * MS, new long[] {200 * MS, 400 * MS, 600 * MS}, null, 3,
                    failure(FailureKind.CANCELLED))),
            // 4 tokens over events at 2.1 and 2.2 s, ends at 2.5 s
            at(2000 * MS, record(100 * MS, 200 * MS, 500 * MS, new long[] {100 * MS, 200 * MS}, 4, 5, null)));

    @Test
    void tokensGoWhereTheyArrivedAndRequestsWhereTheyEnded() {
        ForkResult fork = IterationSlicer.slice(1, load(TIMELINE, 3200 * MS, false), SETTINGS,
                OutputTokens.SERVER_USAGE_ELSE_CLIENT, r -> EventTokenCounts.NONE, false);
        assertEquals(1, fork.warmup().size());
        assertEquals(2, fork.measurement().size());

        IterationResult warm = fork.warmup().get(0);
        assertEquals(IterationType.WARMUP, warm.type());
        assertEquals(2.0, warm.outputTokens(), 1e-12); // first of 3 events of 6 tokens
        assertEquals(0, warm.requestsCompleted());

        IterationResult m1 = fork.measurement().get(0);
        assertEquals(1, m1.index());
        assertEquals(S, m1.startOffsetNanos());
        assertEquals(4.0, m1.outputTokens(), 1e-12);
        assertEquals(4.0, m1.outputTokensPerSecond(), 1e-12);
        assertEquals(1, m1.requestsCompleted());
        assertEquals(1, m1.requestsFailed());
        assertArrayEquals(new double[] {200}, m1.ttftMillis(), 1e-9);
        assertArrayEquals(new double[] {200}, m1.tpotMillis(), 1e-9); // (E2E 1200 - TTFT 200) ms / (6 - 1)
        assertArrayEquals(new double[] {1200}, m1.e2eMillis(), 1e-9);

        IterationResult m2 = fork.measurement().get(1);
        assertEquals(6.0, m2.outputTokens(), 1e-12); // 4 + two thirds of the cancelled request's 3
        assertEquals(1, m2.requestsCompleted());
        assertEquals(0, m2.requestsFailed()); // a cancellation at the end is not a failure
        assertEquals(1.0, m2.requestsPerSecond(), 1e-12);
    }

    @Test
    void anAbortedForkKeepsOnlyWindowsThatEndedBeforeTheStop() {
        ForkResult fork = IterationSlicer.slice(1, load(TIMELINE, 2500 * MS, true), SETTINGS,
                OutputTokens.SERVER_USAGE_ELSE_CLIENT, r -> EventTokenCounts.NONE, true);
        assertEquals(1, fork.warmup().size());
        assertEquals(1, fork.measurement().size());
        assertEquals(true, fork.aborted());
    }

    /** Reasoning first (at 100 ms), content from 300 ms, the end at 1300 ms: 6 tokens by the server or the client. */
    private static io.llmperf4j.model.RequestRecord reasoningFirst(Integer usage, int clientTokens) {
        return new io.llmperf4j.model.RequestRecord(0, "id", null, 0, 300 * MS, 1100 * MS, 1300 * MS, 3,
                new long[] {300 * MS, 700 * MS, 1100 * MS}, "x", 10, 50, clientTokens, usage == null ? null : 10,
                usage, "stop", null, null, null, 100 * MS, -1, null);
    }

    @Test
    void tpotIsTheSummarysDefinitionWithItsReasoningRule() {
        // sent at 1 s: ends at 2.3 s, in the first measured window
        ForkResult fork = IterationSlicer.slice(1, load(List.of(at(S, reasoningFirst(6, -1)),
                        at(S, reasoningFirst(null, 6))), 3 * S, false), SETTINGS,
                OutputTokens.SERVER_USAGE_ELSE_CLIENT, r -> EventTokenCounts.NONE, false);
        IterationResult m2 = fork.measurement().get(1);
        assertEquals(2, m2.requestsCompleted());
        // the server's 6 include the reasoning tokens: the decode starts at the first reasoning token,
        // (1300 - 100) / 5 = 240 ms; the client's 6 count the content only: (1300 - 300) / 5 = 200 ms
        // (the last content event at 1100 ms would have given 200 and 160)
        assertArrayEquals(new double[] {240, 200}, m2.tpotMillis(), 1e-9);
    }

    @Test
    void aRequestWithoutUsageCountsItsEventsAtTheServersTokensPerEvent() {
        OutputTokenPolicy policy = OutputTokenPolicy.DEFAULT;
        List<ScheduledRecord> timeline = List.of(
                // the server's 6 tokens over 3 events: 2 a content event (ends at 1.7 s)
                at(500 * MS, record(200 * MS, 1000 * MS, 1200 * MS, new long[] {200 * MS, 600 * MS, 1000 * MS}, 6, 13,
                        null)),
                // cut at the fork's end after 2 events at 2.7 and 2.9 s; the client's tokenizer counts 9 (BOS included)
                at(2500 * MS, record(200 * MS, 400 * MS, 500 * MS, new long[] {200 * MS, 400 * MS}, null, 9,
                        failure(FailureKind.CANCELLED))),
                // broken off mid-stream after 1 event at 2.2 s, counted 3 by the client
                at(2000 * MS, record(200 * MS, 200 * MS, 300 * MS, new long[] {200 * MS}, null, 3,
                        failure(FailureKind.MISSING_DONE))),
                // refused before any content: the client's count of nothing is not a token received
                at(2100 * MS, record(-1, -1, 100 * MS, new long[0], null, 5, failure(FailureKind.HTTP_STATUS))));
        ForkResult inServerUnits = IterationSlicer.slice(1, load(timeline, 3 * S, false), SETTINGS,
                policy::outputTokensOrZero, policy::eventTokens, true, false);
        // 2 a content event: 2 x 2 (cut) + 1 x 2 (broken)
        assertEquals(6.0, inServerUnits.measurement().get(1).outputTokens(), 1e-12);
        assertEquals(2, inServerUnits.measurement().get(1).requestsFailed()); // broken, refused; the cut one is none
        // counted by the client instead (its own unit: 8 and 2 after the BOS)
        ForkResult byClient = IterationSlicer.slice(1, load(timeline, 3 * S, false), SETTINGS,
                policy::outputTokensOrZero, policy::eventTokens, false, false);
        assertEquals(10.0, byClient.measurement().get(1).outputTokens(), 1e-12);
    }

    @Test
    void aRequestCutByABoundaryCountsTheTokensOfItsEventsOnEachSide() {
        // sent at 0.5 s: events at 0.7 s (warmup), 1.1 and 1.5 s (first measured window) carrying 4, 1, 1 of the
        // server's 6 tokens by the client's count per event; ends at 1.7 s
        RequestRecord r = new RequestRecord(0, "id", null, 0, 200 * MS, 1000 * MS, 1200 * MS, 3,
                new long[] {200 * MS, 600 * MS, 1000 * MS}, "x", 10, 50, 7, 10, 6, "stop", null,
                null, new int[] {4, 1, 1}, -1, -1, null);
        OutputTokenPolicy policy = OutputTokenPolicy.DEFAULT;
        ForkResult fork = IterationSlicer.slice(1, load(List.of(at(500 * MS, r)), 3 * S, false), SETTINGS,
                policy::outputTokensOrZero, policy::eventTokens, false);
        // the summary's output_tokens_delivered rule (EventTokenCounts): 4 before the boundary, 2 after; the even
        // spread gave 2 and 4
        assertEquals(4.0, fork.warmup().get(0).outputTokens(), 1e-12);
        assertEquals(2.0, fork.measurement().get(0).outputTokens(), 1e-12);

        // without per-event counts (another count than a policy's), the even spread as before
        ForkResult even = IterationSlicer.slice(1, load(List.of(at(500 * MS, r)), 3 * S, false), SETTINGS,
                policy::outputTokensOrZero, rec -> EventTokenCounts.NONE, false);
        assertEquals(2.0, even.warmup().get(0).outputTokens(), 1e-12);
        assertEquals(4.0, even.measurement().get(0).outputTokens(), 1e-12);
    }
}
