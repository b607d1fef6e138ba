package io.llmperf4j.engine.load;

import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static io.llmperf4j.engine.load.ClosedLoopRunnerTest.specs;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A warmup with prompts of its own sends them, and the measured requests are those of the same run without warmup,
 * in the same order: a closed loop (by slot and by send order, from a list or a fresh sequence) and an open loop.
 * Without them, the warmup cycles through the measured requests as before.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WarmupPromptsTest {

    private static final Duration LONG = Duration.ofMinutes(1);

    /** The warmup's own sequence: texts "w-k-i" (batch k), never a measured prompt. */
    private static FreshRequests warmupSequence() {
        return new FreshRequests(warm(0), WarmupPromptsTest::warm, notice -> { });
    }

    private static List<RequestSpec> warm(int k) {
        return IntStream.range(0, 2).mapToObj(i -> new RequestSpec(i, "w-" + k + "-" + i, 10, 2)).toList();
    }

    private static List<String> prompts(List<RequestSpec> sent) {
        return sent.stream().map(RequestSpec::prompt).toList();
    }

    private static List<String> closedLoop(List<RequestSpec> specs, ClosedLoopSettings settings) {
        FakeClient client = FakeClient.succeeding();
        new ClosedLoopRunner(client, t -> 1).run(specs, settings);
        return prompts(client.sent);
    }

    private static List<String> openLoop(List<RequestSpec> specs, Warmup warmup) {
        FakeClient client = FakeClient.succeeding();
        new OpenLoopRunner(client, t -> 1).run(specs, OpenLoopSettings.builder(2000).arrival(Arrival.constant())
                .maxRequests(7).timeout(LONG).warmup(warmup).build());
        return prompts(client.sent);
    }

    @Test
    void aClosedLoopsWarmupSendsItsOwnAndTheMeasuredRequestsAreThePlainRunsByEitherOrder() {
        for (ClosedLoopSettings.PromptOrder order : ClosedLoopSettings.PromptOrder.values()) {
            // by slot, which slot sends a request depends on which ended first: one slot, for one order
            int concurrency = order == ClosedLoopSettings.PromptOrder.SEND_ORDER ? 2 : 1;
            ClosedLoopSettings plain = new ClosedLoopSettings(concurrency, LONG).withPromptOrder(order)
                    .withMaxCompleted(7);
            List<String> expected = closedLoop(specs(5), plain);
            List<String> sent = closedLoop(new WarmupPrompts(specs(5), warmupSequence()),
                    plain.withWarmup(Warmup.requests(3)));
            assertEquals(List.of("w-0-0", "w-0-1", "w-1-0"), sent.subList(0, 3), order.toString());
            assertEquals(expected, sent.subList(3, sent.size()), order.toString());
            // a plain list: the warmup cycles through the measured prompts, which go on where it stopped
            List<String> cycled = closedLoop(specs(5), plain.withWarmup(Warmup.requests(3)));
            assertEquals(List.of("prompt 0", "prompt 1", "prompt 2"), cycled.subList(0, 3), order.toString());
        }
    }

    @Test
    void aClosedLoopsFreshSequenceIsTheMeasurementsAlone() {
        FreshRequests measured = new FreshRequests(specs(3),
                k -> IntStream.range(0, 3).mapToObj(i -> new RequestSpec(i, "m-" + k + "-" + i, 10, 2)).toList(),
                notice -> { });
        ClosedLoopSettings plain = new ClosedLoopSettings(1, LONG).withMaxCompleted(8);
        List<String> expected = closedLoop(measured, plain);
        List<String> sent = closedLoop(new WarmupPrompts(measured, warmupSequence()),
                plain.withWarmup(Warmup.requests(2)));
        assertEquals(List.of("w-0-0", "w-0-1"), sent.subList(0, 2));
        assertEquals(expected, sent.subList(2, sent.size()));
    }

    @Test
    void anOpenLoopsWarmupArrivalsSendTheirOwnAndTheMeasuredOnesThePlainRuns() {
        List<String> expected = openLoop(specs(5), Warmup.NONE);
        assertEquals(7, expected.size());
        List<String> sent = openLoop(new WarmupPrompts(specs(5), warmupSequence()), Warmup.requests(3));
        assertEquals(List.of("w-0-0", "w-0-1", "w-1-0"), sent.subList(0, 3));
        assertEquals(expected, sent.subList(3, sent.size()));
    }
}
