package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.testserver.FaultServer;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * An open loop's failed session's rest is a continuation, not an arrival (the sessions QA: it took an arrival of the
 * schedule, so a session due then never started, and it counted among the sessions started and in their rate). Real
 * sockets: {@link FaultServer} answers the prompt "status-500" with a 500, "ok" with a stream.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionRestOpenLoopSocketTest {
    private static final long MS = 1_000_000L;

    /** Sessions "s0", "s1", ... of {@code turns} turns; s0's turn 1 fails (and so does every replay's). */
    private static PacedWorkload workload(int sessions, int turns) {
        List<RequestSpec> specs = new ArrayList<>();
        for (int s = 0; s < sessions; s++) {
            for (int t = 0; t < turns; t++) {
                specs.add(new RequestSpec(specs.size(), s == 0 && t == 1 ? "status-500" : "ok", 2, 3,
                        new RequestInputs("sys", List.of(), List.of(), "s" + s, t)));
            }
        }
        return PacedWorkload.sessions(specs, PacedWorkload.ThinkTime.NONE);
    }

    private static NettyLlmClient client(FaultServer server) {
        return new NettyLlmClient(ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "m")
                .maxConnections(4).build());
    }

    @Test
    void aRestTakesNoArrivalSoEveryArrivalStartsASession() throws Exception {
        try (FaultServer server = FaultServer.start(); NettyLlmClient client = client(server)) {
            // arrivals at 0, 100, 200 and 300 ms for 2 sessions of 3 turns: s0, s1, then their replays s0~1, s1~1
            OpenLoopResult result = new SessionRunner(client, String::length).runOpen(workload(2, 3),
                    OpenLoopSettings.builder(10).arrival(Arrival.constant()).duration(Duration.ofMillis(400))
                            .timeout(Duration.ofSeconds(30)).build(), RecordListener.NONE, () -> false);

            Map<String, Long> startedAt = new TreeMap<>(); // a session's first turn: its arrival's due time
            Map<String, ScheduledRecord> rests = new TreeMap<>();
            Map<String, Long> failedAt = new TreeMap<>(); // a failed turn's end, as the client stamped it
            for (ScheduledRecord r : result.timeline()) {
                if (r.record().tags().restOf() != null) rests.put(r.record().tags().sessionId(), r);
                else if (r.record().tags().turn() == 0) {
                    startedAt.put(r.record().tags().sessionId(), r.intendedSendOffsetNanos());
                }
                if (!r.record().succeeded()) {
                    failedAt.put(r.record().tags().sessionId(), r.actualSendOffsetNanos() + r.record().e2eNanos());
                }
            }
            assertEquals(Map.of("s0", 0L, "s1", 100 * MS, "s0~1", 200 * MS, "s1~1", 300 * MS), startedAt,
                    "every arrival started a session (the rest took the one at 200 ms, and s1~1 never started)");
            assertEquals(0, result.arrivalsNotSent());
            // s0 and its replay failed at turn 1: each rest sent its turn 2, as turn 2, tagged with its session
            Map<String, String> restOf = new TreeMap<>();
            rests.forEach((id, r) -> restOf.put(id, r.record().tags().restOf()));
            assertEquals(Map.of("s0~t2", "s0", "s0~1~t2", "s0~1"), restOf, rests::toString);
            for (ScheduledRecord r : rests.values()) {
                assertEquals(2, r.record().tags().turn(), r::toString);
                assertEquals(3, r.record().tags().sessionTurns(), r::toString);
            }
            // a rest is due when its turn failed, or when every session had started (s1's arrival) if later
            assertEquals(Math.max(failedAt.get("s0"), 100 * MS), rests.get("s0~t2").intendedSendOffsetNanos());
            assertEquals(Math.max(failedAt.get("s0~1"), 100 * MS), rests.get("s0~1~t2").intendedSendOffsetNanos());
            // 3 turns of s1 and s1~1, 2 of s0 and s0~1 (the second failed), one of each rest
            assertEquals(12, result.records().size());
            assertEquals(12, server.requestsReceived());
        }
    }

    @Test
    void underARequestBudgetARestIsSentBesideTheOneArrivalPerSession() throws Exception {
        try (FaultServer server = FaultServer.start(); NettyLlmClient client = client(server)) {
            // 3 sessions of 3 turns, 9 requests: 3 arrivals, one per session; s0's turn 2 needs none
            OpenLoopResult result = new SessionRunner(client, String::length).runOpen(workload(3, 3),
                    OpenLoopSettings.builder(20).arrival(Arrival.constant()).maxRequests(9)
                            .timeout(Duration.ofSeconds(30)).build(), RecordListener.NONE, () -> false);

            assertEquals(9, result.records().size(), "before, s0's turn 2 was not sent (no arrival was left)");
            assertEquals(0, result.turnsNotSent());
            assertEquals(0, result.arrivalsNotSent());
            RequestRecord rest = result.records().stream().filter(r -> "s0~t2".equals(r.tags().sessionId()))
                    .findFirst().orElseThrow(() -> new AssertionError(result.records().toString()));
            assertEquals(2, rest.tags().turn());
            assertEquals("s0", rest.tags().restOf());
            assertNull(result.records().stream().filter(r -> "s1".equals(r.tags().sessionId())).findFirst()
                    .orElseThrow().tags().restOf());
        }
    }
}
