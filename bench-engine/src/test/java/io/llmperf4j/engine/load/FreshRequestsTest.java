package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.engine.harness.HarnessResult;
import io.llmperf4j.engine.harness.HarnessRunner;
import io.llmperf4j.engine.harness.HarnessSettings;
import io.llmperf4j.engine.testserver.TimedSseServer;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every send of a run gets a request of its own, drawn ahead, in a sequence that is the same every time: the harness
 * over real sockets sends no prompt twice (a plain list still loops), and texts that repeat are skipped until too
 * few are new, then let through and told.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FreshRequestsTest {

    private static List<RequestSpec> batch(String tag, int k, int size) {
        return IntStream.range(0, size).mapToObj(i -> new RequestSpec(i, tag + "-" + k + "-" + i, 10, 2)).toList();
    }

    private static List<RequestSpec> take(FreshRequests fresh, int ahead, int n) {
        List<RequestSpec> taken = new ArrayList<>();
        try (FreshRequests.Supply supply = fresh.open(ahead)) {
            for (int i = 0; i < n; i++) taken.add(supply.next());
            assertEquals(n, supply.taken());
            assertEquals(0, supply.repeats());
        }
        return taken;
    }

    @Test
    void theSequenceIsTheFirstBatchThenEachLaterOneRenumberedAndTheSameEveryTime() {
        List<String> notices = new CopyOnWriteArrayList<>();
        FreshRequests fresh = new FreshRequests(batch("a", 0, 3), k -> batch("a", k, 3), notices::add);
        // as a list: the first batch, as before
        assertEquals(batch("a", 0, 3), fresh);
        List<RequestSpec> first = take(fresh, 2, 10);
        assertEquals(List.of("a-0-0", "a-0-1", "a-0-2", "a-1-0", "a-1-1", "a-1-2", "a-2-0", "a-2-1", "a-2-2",
                "a-3-0"), first.stream().map(RequestSpec::prompt).toList());
        assertEquals(IntStream.range(0, 10).boxed().toList(), first.stream().map(RequestSpec::index).toList());
        // another run from the same workload: the same sequence from its start
        assertEquals(first, take(fresh, 5, 10));
        // taken faster than drawn ahead here: those sends waited, and the run is told
        assertTrue(notices.stream().allMatch(n -> n.matches("llmperf4j: prompts: \\d+ of 10 sends waited for a "
                + "fresh prompt to be drawn \\(.* ms in all\\): drawing fell behind the request rate")), notices::toString);
    }

    @Test
    void repeatedTextsAreSkippedUntilTooFewAreNewThenSentAndTold() {
        // 40 distinct texts in all: batches 0-3 hold them, every later batch repeats one of those
        IntFunction<List<RequestSpec>> batches = k -> IntStream.range(0, 10)
                .mapToObj(i -> new RequestSpec(i, "t" + (k * 10 + i) % 40, 10, 2)).toList();
        List<String> notices = new CopyOnWriteArrayList<>();
        FreshRequests fresh = new FreshRequests(batches.apply(0), batches, notices::add);
        List<String> sent = new ArrayList<>();
        int repeats;
        try (FreshRequests.Supply supply = fresh.open(1)) {
            for (int i = 0; i < 100; i++) sent.add(supply.next().prompt());
            repeats = supply.repeats();
        }
        // the 40 first, each once: draws 41-64 are skipped (a block of 64 with 40 new), then draws 65-128 bring
        // none new, so from the 128th draw (t7) on repeats are sent
        assertEquals(IntStream.range(0, 40).mapToObj(i -> "t" + i).toList(), sent.subList(0, 40));
        assertEquals(IntStream.range(40, 100).mapToObj(i -> "t" + (i - 40 + 7) % 40).toList(),
                sent.subList(40, 100));
        assertTrue(repeats >= 60, "repeats " + repeats);
        assertEquals(List.of("llmperf4j: prompts: these lengths give too few distinct synthetic prompts: " + repeats
                + " of the " + (40 + repeats) + " drawn repeated an earlier one (the server's prefix cache can serve "
                + "those)"), notices.stream().filter(n -> !n.contains("sends waited")).toList());
    }

    @Test
    void harnessForksOverRealSocketsSendEveryRequestAPromptOfItsOwn() throws IOException {
        HarnessSettings settings = HarnessSettings.of(1, Duration.ofMillis(300), 2, Duration.ofMillis(300), 2);
        List<String> notices = new CopyOnWriteArrayList<>();
        // each phase its own prompt names ("c0-1-0", "o0-1-0", "x-0-0"), and the server's prompts split by name: a
        // request cancelled at a phase's end can reach the server after the next phase has begun
        Function<String, IntFunction<List<RequestSpec>>> forkSpecs = phase -> fork -> new FreshRequests(
                batch(phase + fork, 0, 4), k -> batch(phase + fork, k, 4), notices::add);
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(2), Duration.ofMillis(1))) {
            HarnessResult closed = harness(server).run("fresh", Map.of(), forkSpecs.apply("c"),
                    new ClosedLoopSettings(3, Duration.ofMinutes(1)), settings, null);
            HarnessResult open = harness(server).run("fresh", Map.of(), forkSpecs.apply("o"),
                    OpenLoopSettings.builder(200).seed(3).maxRequests(1).build(), settings, null);
            // a plain list of 4: each fork loops over it, as a workload meant to be sent again is
            HarnessResult looped = harness(server).run("fixed", Map.of(), batch("x", 0, 4),
                    new ClosedLoopSettings(3, Duration.ofMinutes(1)), settings, null);
            List<String> closedPrompts = phase(server.prompts(), "c");
            List<String> openPrompts = phase(server.prompts(), "o");
            List<String> loopedPrompts = phase(server.prompts(), "x");

            for (List<String> prompts : List.of(closedPrompts, openPrompts)) {
                // past the 4 of a fork's first batch (where a list would loop), every one a prompt of its own. How
                // many the forks' windows held is the machine's doing: on a starved one 34 in all, and the first
                // fork, paying the JVM's first sends, sent 1 while the second sent 16 to 50
                assertTrue(prompts.stream().anyMatch(p -> p.matches("[co]\\d-1-0")), () -> "sent " + prompts);
                assertEquals(prompts.size(), new HashSet<>(prompts).size(), "a prompt sent twice");
                String phase = prompts.get(0).substring(0, 1);
                assertTrue(prompts.contains(phase + "0-0-0") && prompts.contains(phase + "1-0-0"),
                        "each fork's own sequence");
            }
            // the server saw what the forks recorded (requests cancelled at a fork's end may not have reached it)
            assertTrue(closedPrompts.size() <= records(closed) && records(closed) - closedPrompts.size() <= 2 * 3);
            assertTrue(openPrompts.size() <= records(open));
            assertEquals(4, new HashSet<>(loopedPrompts).size());
            assertTrue(loopedPrompts.size() > 8);
        }
        // a send waits for its draw only when the drawer's thread falls behind (a starved machine): told, and that
        // send still gets a prompt of its own (above). A repeat is never right here
        assertEquals(List.of(), notices.stream().filter(n -> !n.matches("llmperf4j: prompts: \\d+ of \\d+ sends "
                + "waited for a fresh prompt to be drawn \\(.* ms in all\\): drawing fell behind the request rate"))
                .toList(), "no prompt repeated");
    }

    /** The prompts the server had of one phase, in the order it had them: the phase's letter starts each name. */
    private static List<String> phase(List<String> prompts, String letter) {
        return prompts.stream().filter(p -> p.startsWith(letter)).toList();
    }

    /**
     * A send that finds no prompt drawn waits alone: the drawer is held at batch 30 (the 121st prompt) until the run
     * has recorded every one of the 120 requests it could send, so those records are kept only if the slots' other
     * requests end, re-send and are recorded while a send waits for its prompt. Waiting inside the lock every slot's
     * send takes, the first send that ran out held up the others' records (the gate opened only at its 20 s fallback,
     * with fewer). Each slot waits at most once there: 1-4 waits told.
     */
    @Test
    void aSendThatWaitsForADrawLeavesTheOtherSlotsToEndAndRecordTheirRequests() throws IOException {
        int gate = 30;
        int beforeGate = gate * 4;
        CountDownLatch everyOneRecorded = new CountDownLatch(1);
        AtomicBoolean fellBack = new AtomicBoolean();
        List<String> notices = new CopyOnWriteArrayList<>();
        FreshRequests fresh = new FreshRequests(batch("s", 0, 4), k -> {
            if (k == gate) {
                try {
                    // the fallback: the test fails below instead of hanging
                    if (!everyOneRecorded.await(20, TimeUnit.SECONDS)) fellBack.set(true);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return batch("s", k, 4);
        }, notices::add);
        AtomicInteger recorded = new AtomicInteger();
        RecordListener listener = record -> {
            if (recorded.incrementAndGet() == beforeGate) everyOneRecorded.countDown();
        };
        ClosedLoopResult result;
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(1), Duration.ofMillis(1));
             NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(
                     EndpointUrls.chatCompletions(server.baseUrl()), "m").apiKey(Secret.of("k")).maxConnections(4)
                     .build())) {
            result = new ClosedLoopRunner(client, String::length).run(fresh,
                    new ClosedLoopSettings(4, OptionalInt.of(beforeGate + 40), Duration.ofMinutes(1)), listener);
        } finally {
            everyOneRecorded.countDown();
        }

        assertFalse(fellBack.get(), "the requests before the gate were not all recorded while it held");
        assertEquals(beforeGate + 40, result.records().size());
        assertTrue(result.records().stream().allMatch(RequestRecord::succeeded), result.records()::toString);
        assertEquals(beforeGate + 40, result.records().stream().map(RequestRecord::promptIndex).distinct().count());
        assertEquals(1, notices.size(), notices::toString);
        Matcher waited = Pattern.compile("llmperf4j: prompts: (\\d+) of (\\d+) sends waited .*").matcher(notices.get(0));
        assertTrue(waited.matches(), notices::toString);
        int waits = Integer.parseInt(waited.group(1));
        assertTrue(waits >= 1 && waits <= 4, "each slot waited at most once: " + notices);
    }

    private static int records(HarnessResult r) {
        return r.forks().stream().mapToInt(f -> f.load().records().size()).sum();
    }

    private static HarnessRunner harness(TimedSseServer server) {
        return new HarnessRunner(() -> new NettyLlmClient(ClientConfig.builder(
                EndpointUrls.chatCompletions(server.baseUrl()), "m").apiKey(Secret.of("k")).maxConnections(16)
                .build()), String::length, OutputTokens.SERVER_USAGE_ELSE_CLIENT);
    }
}
