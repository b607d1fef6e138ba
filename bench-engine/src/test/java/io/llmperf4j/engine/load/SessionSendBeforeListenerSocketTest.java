package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.PreparedRequest;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.engine.testserver.TimedSseServer;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.llmperf4j.engine.load.TestSessions.netty;
import static io.llmperf4j.engine.load.TestSessions.workload;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A closed loop of sessions sends the turn (or the next session) a reply made due before it hands the reply's record
 * to the listener (on a thread of its own), whose work (the journal, the live line; 230 ms on its first call in a cold
 * JVM, the sessions QA) was otherwise the next turn's send lag. Real sockets, a timed SSE server; the listener reads how many requests the
 * client had been asked to send when it got each record.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionSendBeforeListenerSocketTest {

    @Test
    void aLaterTurnWithoutThinkTimeIsSentBeforeTheListenerSeesThePreviousReply() throws Exception {
        List<Integer> sentWhenHeard = run(workload(1, 3, 0));
        assertHeardAfterTheSendsTheyMadeDue(sentWhenHeard);
    }

    @Test
    void theNextSessionIsSentBeforeTheListenerSeesTheReplyThatFreedItsSlot() throws Exception {
        List<Integer> sentWhenHeard = run(workload(3, 1, 0));
        assertHeardAfterTheSendsTheyMadeDue(sentWhenHeard);
    }

    /** Record k (k = 0, 1) made send k + 2 due: it was asked for before the listener heard record k. */
    private static void assertHeardAfterTheSendsTheyMadeDue(List<Integer> sentWhenHeard) {
        assertEquals(3, sentWhenHeard.size(), sentWhenHeard::toString);
        assertTrue(sentWhenHeard.get(0) >= 2, "sends as each record was heard: " + sentWhenHeard);
        assertEquals(3, sentWhenHeard.get(1), "sends as each record was heard: " + sentWhenHeard);
        assertEquals(3, sentWhenHeard.get(2), "sends as each record was heard: " + sentWhenHeard);
    }

    /** One session slot; for each record, in order, the sends the client had been asked for when it was heard. */
    private static List<Integer> run(PacedWorkload workload) throws Exception {
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(2), Duration.ofMillis(1));
             SendCount client = new SendCount(netty(server))) {
            List<Integer> heard = java.util.Collections.synchronizedList(new ArrayList<>());
            RecordListener listener = new RecordListener() {
                @Override
                public void onRecord(io.llmperf4j.model.RequestRecord record) {
                }

                @Override
                public void onScheduledRecord(ScheduledRecord record) {
                    heard.add(client.sends.get());
                }
            };
            ClosedLoopResult result = new SessionRunner(client, String::length).runClosed(workload,
                    new ClosedLoopSettings(1, OptionalInt.of(3), Duration.ofSeconds(30)), listener, () -> false);
            assertEquals(3, result.records().size());
            assertEquals(3, server.requests());
            return heard;
        }
    }

    /** The real client, counting the requests it was asked to send (built when sent, or built ahead). */
    private static final class SendCount implements LlmClient {
        final NettyLlmClient netty;
        final AtomicInteger sends = new AtomicInteger();

        SendCount(NettyLlmClient netty) {
            this.netty = netty;
        }

        @Override
        public RequestHandle send(RequestSpec spec) {
            return send(spec, null);
        }

        @Override
        public RequestHandle send(RequestSpec spec, Runnable whenEnded) {
            sends.incrementAndGet();
            return netty.send(spec, whenEnded);
        }

        @Override
        public PreparedRequest prepare(RequestSpec spec, Runnable whenEnded) {
            PreparedRequest ready = netty.prepare(spec, whenEnded);
            return new PreparedRequest() {
                @Override
                public RequestHandle send() {
                    sends.incrementAndGet();
                    return ready.send();
                }

                @Override
                public void discard() {
                    ready.discard();
                }
            };
        }

        @Override
        public long[] preconnect(int connections) {
            return netty.preconnect(connections);
        }

        @Override
        public void close() {
            netty.close();
        }
    }
}
