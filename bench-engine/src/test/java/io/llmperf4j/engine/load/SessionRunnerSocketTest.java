package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.testserver.TimedSseServer;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Closed-loop multi-turn sessions over real sockets: a think time the client overran is send lag. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionRunnerSocketTest {
    private static final long THINK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final long BUSY_MILLIS = 60;

    @Test
    void aClosedLoopTurnIsDueAtThePreviousTurnsEndPlusItsThinkTimeAndItsLatenessIsSendLag() throws Exception {
        List<RequestSpec> specs = new ArrayList<>();
        for (int s = 0; s < 2; s++) {
            for (int t = 0; t < 3; t++) {
                specs.add(new RequestSpec(specs.size(), "u" + s + "." + t, 2, 3,
                        new RequestInputs("sys", List.of(), List.of(), "s" + s, t)));
            }
        }
        PacedWorkload workload = PacedWorkload.sessions(specs, turn -> THINK_NANOS);
        // the runner's own thread is kept busy past every think time: counting each reply's tokens takes 60 ms, on
        // the thread that would send the next turn 20 ms after the reply (the listener is called after the sends)
        io.llmperf4j.model.TokenCounter busy = text -> {
            sleep(BUSY_MILLIS);
            return text.length();
        };
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(2), Duration.ofMillis(1));
             NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(
                     EndpointUrls.chatCompletions(server.baseUrl()), "m").maxConnections(2).build())) {
            ClosedLoopResult result = new SessionRunner(client, busy).runClosed(workload,
                    new ClosedLoopSettings(1, OptionalInt.of(6), Duration.ofSeconds(30)), RecordListener.NONE,
                    () -> false);

            assertEquals(6, result.records().size());
            assertTrue(result.records().stream().allMatch(RequestRecord::succeeded), result.records()::toString);
            List<ScheduledRecord> bySend = result.timeline().stream()
                    .sorted(Comparator.comparingLong(ScheduledRecord::actualSendOffsetNanos)).toList();
            assertEquals(0, bySend.get(0).intendedSendOffsetNanos(), "the first session is due at the start");
            for (int i = 1; i < bySend.size(); i++) {
                ScheduledRecord r = bySend.get(i);
                // due at the previous turn's end plus the think time (a session's first turn: when its slot freed),
                // sent only once the count let the thread go: at least 60 - 20 ms late
                assertTrue(r.sendLagNanos() >= TimeUnit.MILLISECONDS.toNanos(BUSY_MILLIS) - THINK_NANOS,
                        "send " + i + ": lag " + r.sendLagNanos() + " ns");
                assertEquals(r.record().ttftNanos() + r.startLagNanos(), r.ttftFromIntendedNanos());
                assertTrue(r.intendedSendOffsetNanos() > bySend.get(i - 1).actualSendOffsetNanos(),
                        "one session in flight: due after the previous send");
            }
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
