package io.llmperf4j.engine.load;

import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ClosedLoopRunnerTest {

    private static final Duration LONG = Duration.ofMinutes(5);

    static List<RequestSpec> specs(int m) {
        return IntStream.range(0, m).mapToObj(i -> new RequestSpec(i, "prompt " + i, 100 + i, 10 + i)).toList();
    }

    private static List<Integer> indices(List<RequestSpec> specs) {
        return specs.stream().map(RequestSpec::index).toList();
    }

    @Test
    void slotsStartAtTheirIndexAndAdvanceByConcurrency() {
        FakeClient client = FakeClient.succeeding();
        ClosedLoopResult result = new ClosedLoopRunner(client, String::length)
                .run(specs(5), new ClosedLoopSettings(3, LONG).withMaxCompleted(8));
        // slots 0,1,2 send 0,1,2; then slot 0 → 3, slot 1 → 4, slot 2 → 0, slot 0 → 1, slot 1 → 2
        assertEquals(List.of(0, 1, 2, 3, 4, 0, 1, 2), indices(client.sent));
        assertEquals(8, result.records().size());
        assertEquals(8, result.requestsSent());
        assertFalse(result.timedOut());
        assertFalse(result.stopped());
    }

    @Test
    void sendOrderSendsEverySpecOnceWhileASlotIsStuck() {
        // slot 1's first request (spec 1) never answers: with slot strides slot 0 wraps and re-sends,
        // in send order the other specs still go out once each
        FakeClient stride = FakeClient.silentFor(spec -> spec.index() == 1);
        ClosedLoopResult strideResult = new ClosedLoopRunner(stride, t -> 1)
                .run(specs(6), new ClosedLoopSettings(2, Duration.ofMillis(300)));
        assertEquals(List.of(0, 1, 2, 4, 0, 2), indices(stride.sent));
        assertEquals(6, strideResult.records().size());

        FakeClient inOrder = FakeClient.silentFor(spec -> spec.index() == 1);
        ClosedLoopResult result = new ClosedLoopRunner(inOrder, t -> 1).run(specs(6),
                new ClosedLoopSettings(2, Duration.ofMillis(300))
                        .withPromptOrder(ClosedLoopSettings.PromptOrder.SEND_ORDER));
        assertEquals(List.of(0, 1, 2, 3, 4, 5), indices(inOrder.sent));
        assertEquals(6, result.records().size());
        assertTrue(result.timedOut());
        assertEquals(FailureKind.CANCELLED, result.records().get(5).failure().kind(), "spec 1, cancelled last");
        assertEquals(1, result.records().get(5).promptIndex());
    }

    @Test
    void defaultsToOneRecordPerSpecAndEachSlotKeepsItsPromptWhenMEqualsN() {
        FakeClient client = FakeClient.succeeding();
        ClosedLoopResult result = new ClosedLoopRunner(client, t -> 1).run(specs(10), new ClosedLoopSettings(10, LONG));
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), indices(client.sent));
        assertEquals(10, result.records().size());
    }

    @Test
    void neverSendsMoreThanMaxCompleted() {
        FakeClient client = FakeClient.succeeding();
        ClosedLoopResult result = new ClosedLoopRunner(client, t -> 1)
                .run(specs(20), new ClosedLoopSettings(20, LONG));
        assertEquals(20, client.sent.size(), "llmperf #82 sent 40 for M = N = 20");
        assertEquals(20, result.requestsSent());

        FakeClient few = FakeClient.succeeding();
        new ClosedLoopRunner(few, t -> 1).run(specs(3), new ClosedLoopSettings(10, LONG));
        assertEquals(3, few.sent.size(), "slots beyond maxCompleted never send");
    }

    @Test
    void failuresAreRecordsAndCountAsCompleted() {
        FakeClient client = FakeClient.answering(spec -> spec.index() % 2 == 0
                ? new Failure(FailureKind.HTTP_STATUS, 500, "boom") : null);
        ClosedLoopResult result = new ClosedLoopRunner(client, t -> 1).run(specs(6), new ClosedLoopSettings(2, LONG));
        assertEquals(6, result.records().size());
        assertEquals(3, result.records().stream().filter(r -> !r.succeeded()).count());
        assertEquals(6, client.sent.size());
    }

    @Test
    void tokenCounterAndListenerSeeEveryRecordOnTheRunnerThreadInOrder() {
        FakeClient client = FakeClient.succeeding();
        List<RequestRecord> heard = new ArrayList<>();
        List<String> threads = new ArrayList<>();
        ClosedLoopResult result = new ClosedLoopRunner(client, String::length).run(specs(4),
                new ClosedLoopSettings(2, LONG), r -> {
                    heard.add(r);
                    threads.add(Thread.currentThread().getName());
                });
        assertEquals(result.records(), heard);
        assertTrue(threads.stream().allMatch(Thread.currentThread().getName()::equals));
        for (RequestRecord r : result.records()) {
            assertEquals(("text of " + r.promptIndex()).length(), r.outputTokens());
        }
    }

    @Test
    void timeoutCancelsWhatIsInFlightAndRecordsIt() {
        FakeClient client = FakeClient.neverAnswering();
        ClosedLoopResult result = new ClosedLoopRunner(client, String::length)
                .run(specs(10), new ClosedLoopSettings(3, Duration.ofMillis(100)));
        assertTrue(result.timedOut());
        assertEquals(3, result.requestsSent());
        assertEquals(3, client.cancels.get());
        assertEquals(3, result.records().size());
        for (RequestRecord r : result.records()) {
            assertEquals(FailureKind.CANCELLED, r.failure().kind());
            assertEquals("partial".length(), r.outputTokens(), "cancelled records are token-counted too");
        }
        assertTrue(result.durationNanos() >= TimeUnit.MILLISECONDS.toNanos(100));
        assertTrue(result.endEpochMillis() >= result.startEpochMillis());
    }

    @Test
    void stopFromAnotherThreadEndsTheRun() throws Exception {
        FakeClient client = FakeClient.neverAnswering();
        ClosedLoopRunner runner = new ClosedLoopRunner(client, t -> 0);
        CompletableFuture<ClosedLoopResult> running = CompletableFuture.supplyAsync(
                () -> runner.run(specs(4), new ClosedLoopSettings(2, LONG)));
        while (client.sent.size() < 2) Thread.sleep(5);
        runner.stop();
        ClosedLoopResult result = running.get(20, TimeUnit.SECONDS);
        assertTrue(result.stopped());
        assertFalse(result.timedOut());
        assertEquals(2, result.records().size());
        assertTrue(result.records().stream().allMatch(r -> r.failure().kind() == FailureKind.CANCELLED));
    }

    @Test
    void aThrowingListenerAbortsTheRunAndCancelsInFlight() {
        FakeClient client = FakeClient.answering(spec -> null);
        ClosedLoopRunner runner = new ClosedLoopRunner(client, t -> 0);
        IllegalStateException boom = new IllegalStateException("disk full");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> runner.run(specs(5),
                new ClosedLoopSettings(2, LONG), r -> {
                    throw boom;
                }));
        assertSame(boom, thrown);
        // the runner is usable again
        assertEquals(5, runner.run(specs(5), new ClosedLoopSettings(2, LONG)).records().size());
    }

    @Test
    void settingsAreValidated() {
        assertEquals("concurrency (0) must be >= 1", assertThrows(IllegalArgumentException.class,
                () -> new ClosedLoopSettings(0, LONG)).getMessage());
        assertEquals("maxCompleted (0) must be >= 1", assertThrows(IllegalArgumentException.class,
                () -> new ClosedLoopSettings(1, OptionalInt.of(0), LONG)).getMessage());
        assertEquals("timeout (PT0S) must be > 0", assertThrows(IllegalArgumentException.class,
                () -> new ClosedLoopSettings(1, Duration.ZERO)).getMessage());
        assertEquals("specs must not be empty", assertThrows(IllegalArgumentException.class,
                () -> new ClosedLoopRunner(FakeClient.succeeding(), t -> 0).run(List.of(),
                        new ClosedLoopSettings(1, LONG))).getMessage());
    }
}
