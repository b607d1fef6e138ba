package io.llmperf4j.engine.load;

import io.llmperf4j.model.ChatMessage;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SessionRunnerTest {
    private static final TokenCounter WORDS = text -> text.isEmpty() ? 0 : text.split(" ").length;

    /** Sessions of the given turn counts, ids s0, s1, ...; prompt "u<session>.<turn>", 2 input tokens each. */
    private static List<RequestSpec> sessions(int... turns) {
        List<RequestSpec> specs = new ArrayList<>();
        for (int s = 0; s < turns.length; s++) {
            for (int t = 0; t < turns[s]; t++) {
                specs.add(new RequestSpec(specs.size(), "u" + s + "." + t, 2, 5,
                        new RequestInputs("sys", List.of(), List.of(), "s" + s, t)));
            }
        }
        return specs;
    }

    @Test
    void eachTurnCarriesTheHistoryWithTheServersRepliesAndTheLoopCountsSessions() {
        FakeClient client = FakeClient.succeeding();
        PacedWorkload workload = PacedWorkload.sessions(sessions(3, 1, 2), PacedWorkload.ThinkTime.NONE);
        ClosedLoopResult result = new SessionRunner(client, WORDS).runClosed(workload,
                new ClosedLoopSettings(1, OptionalInt.of(6), Duration.ofSeconds(10)), RecordListener.NONE, () -> false);

        assertEquals(6, result.records().size());
        assertEquals(List.of("u0.0", "u0.1", "u0.2", "u1.0", "u2.0", "u2.1"),
                client.sent.stream().map(RequestSpec::prompt).toList(), "one session in flight, turn after turn");
        RequestSpec third = client.sent.get(2);
        assertEquals(List.of(ChatMessage.user("u0.0"), ChatMessage.assistant("text of 0"), ChatMessage.user("u0.1"),
                ChatMessage.assistant("text of 1")), third.inputs().history());
        assertEquals("sys", third.inputs().systemPrompt());
        assertEquals(2 + 3 + 2 + 3 + 2, third.numberInputTokens(), "earlier turns and replies counted in");
        assertEquals("s0", third.inputs().sessionId());
        assertEquals(2, third.inputs().turn());
    }

    @Test
    void theRequestBudgetCutsTheLastSessionAndAFailedTurnEndsItsSession() {
        FakeClient client = FakeClient.answering(spec -> spec.prompt().equals("u0.0")
                ? new Failure(FailureKind.HTTP_STATUS, 500, "boom") : null);
        PacedWorkload workload = PacedWorkload.sessions(sessions(3, 3), turn -> 1_000_000L);
        ClosedLoopResult result = new SessionRunner(client, WORDS).runClosed(workload,
                new ClosedLoopSettings(1, OptionalInt.of(3), Duration.ofSeconds(10)),
                RecordListener.NONE, () -> false);
        assertEquals(List.of("u0.0", "u1.0", "u1.1"), client.sent.stream().map(RequestSpec::prompt).toList());
        assertEquals(3, result.requestsSent());
    }

    @Test
    void moreSlotsThanSessionsKeepOnlyTheSessionsInFlightUntilTheBudgetAllowsReplays() {
        FakeClient client = FakeClient.succeeding();
        PacedWorkload workload = PacedWorkload.sessions(sessions(3, 3), PacedWorkload.ThinkTime.NONE);
        new SessionRunner(client, WORDS).runClosed(workload, new ClosedLoopSettings(10, OptionalInt.of(8),
                Duration.ofSeconds(10)), RecordListener.NONE, () -> false);
        List<String> ids = client.sent.stream().map(r -> r.inputs().sessionId()).distinct().toList();
        assertEquals(List.of("s0", "s1", "s0~1"), ids, "6 turns, then a replay for the 2 left in the budget");
        assertEquals(8, client.sent.size());
    }

    @Test
    void anOpenLoopOfSessionsSaysItsArrivalsAreSessions() {
        FakeClient client = FakeClient.succeeding();
        OpenLoopSettings settings = OpenLoopSettings.builder(20).maxRequests(4).maxConcurrency(3).build();
        OpenLoopResult result = new SessionRunner(client, WORDS).runOpen(PacedWorkload.sessions(sessions(2, 2),
                PacedWorkload.ThinkTime.NONE), settings, RecordListener.NONE, () -> false);
        assertEquals(4, result.records().size());
        assertEquals("open loop, 20 req/s poisson, at most 3 in flight", settings.describe());
        // the summary's load (llmperf4j_load) is its settings' words: the console's
        assertEquals("open loop, 20 sessions/s, poisson session arrivals, at most 3 requests in flight",
                result.settings().describe());
        assertEquals(settings.withSessionArrivals(), result.settings());
        assertEquals(settings.schedule(), result.settings().schedule(), "the same load");
        assertEquals("open loop, 2.5 sessions/s, constant session arrivals", OpenLoopSettings.builder(2.5)
                .arrival(Arrival.constant()).maxRequests(1).sessionArrivals(true).build().describe());
    }

    @Test
    void anOpenLoopsArrivalsStartSessionsAndATraceKeepsItsTimes() {
        FakeClient client = FakeClient.succeeding();
        PacedWorkload trace = PacedWorkload.trace(sessions(2, 2), new long[] {0, 200_000_000L},
                PacedWorkload.ThinkTime.NONE);
        OpenLoopResult result = new SessionRunner(client, WORDS).runOpen(trace,
                OpenLoopSettings.builder(100).maxRequests(4).build(), RecordListener.NONE, () -> false);
        assertEquals(4, result.records().size());
        assertEquals(List.of(0L, 0L, 200_000_000L, 200_000_000L), result.timeline().stream()
                .map(r -> r.intendedSendOffsetNanos() - (r.intendedSendOffsetNanos() % 200_000_000L)).toList());
    }
}
