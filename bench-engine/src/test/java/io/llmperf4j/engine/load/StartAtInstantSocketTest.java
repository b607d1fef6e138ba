package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.ConnectionMode;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.testserver.FaultServer;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The runners' clock start: reported in the result, and, for a load worker, set to a given instant after the
 * connections are open ({@code runAt}). Real client, real sockets.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StartAtInstantSocketTest {

    private static final Duration LONG = Duration.ofMinutes(1);

    private FaultServer server;
    private NettyLlmClient client;

    @BeforeEach
    void start() throws IOException {
        server = FaultServer.start();
        client = new NettyLlmClient(ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "m")
                .maxConnections(16).connectionMode(ConnectionMode.PRECONNECT).build());
    }

    @AfterEach
    void stop() throws IOException {
        client.close();
        server.close();
    }

    private static List<RequestSpec> specs(int n) {
        return IntStream.range(0, n).mapToObj(i -> new RequestSpec(i, "ok", 10, 20)).toList();
    }

    @Test
    void aPlainRunReportsWhereItsClockStarted() {
        long before = System.nanoTime();
        ClosedLoopResult result = new ClosedLoopRunner(client, String::length).run(specs(4),
                new ClosedLoopSettings(2, LONG));
        long after = System.nanoTime();

        assertTrue(result.clockStartNanos() - before > 0 && after - result.clockStartNanos() > 0);
        assertTrue(after - result.clockStartNanos() >= result.endOffsetNanos(), "every offset counts from it");
    }

    /** A closed loop opens its connections, then waits for the instant: its clock never starts before it. */
    @Test
    void aClosedLoopStartsItsClockAtTheInstantWithItsConnectionsOpen() {
        long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
        ClosedLoopResult result = new ClosedLoopRunner(client, String::length).runAt(at, specs(6),
                new ClosedLoopSettings(3, LONG), RecordListener.NONE, () -> false);

        assertEquals(6, result.records().size());
        assertTrue(result.records().stream().allMatch(RequestRecord::succeeded), result.records()::toString);
        assertTrue(result.clockStartNanos() - at >= 0, "not before the instant");
        assertEquals(3, result.preconnectNanos().length, "one per slot, opened before it");
        assertTrue(result.records().stream().allMatch(r -> r.connectNanos() == RequestRecord.NEVER));
        assertEquals(3, server.acceptedConnections());
    }

    /** An open loop's schedule has its origin at the instant itself, when the instant is far enough ahead. */
    @Test
    void anOpenLoopsScheduleHasItsOriginAtTheInstant() {
        OpenLoopSettings settings = OpenLoopSettings.builder(100).arrival(Arrival.constant()).maxRequests(5)
                .maxConcurrency(2).timeout(Duration.ofSeconds(20)).build();
        long at = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
        OpenLoopResult result = new OpenLoopRunner(client, String::length).runAt(at, specs(5), settings,
                settings.schedule(), RecordListener.NONE, () -> false);

        assertEquals(at, result.clockStartNanos());
        assertEquals(5, result.records().size());
        assertArrayEquals(settings.schedule().offsetsNanos(), result.timeline().stream()
                .mapToLong(ScheduledRecord::intendedSendOffsetNanos).sorted().toArray());
        assertTrue(result.timeline().stream().allMatch(r -> r.sendLagNanos() >= 0), "none sent before its time");
        assertEquals(2, result.preconnectNanos().length);
    }

    /** A stop while a runner waits for its instant ends the run at once; nothing is sent. */
    @Test
    void aStopBeforeTheInstantSendsNothing() throws Exception {
        ClosedLoopRunner runner = new ClosedLoopRunner(client, String::length);
        long at = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        CompletableFuture<ClosedLoopResult> running = CompletableFuture.supplyAsync(() -> runner.runAt(at,
                specs(4), new ClosedLoopSettings(2, LONG), RecordListener.NONE, () -> false));
        while (server.acceptedConnections() < 2) Thread.sleep(5); // its connections are open: it waits now
        runner.stop();
        ClosedLoopResult result = running.get(10, TimeUnit.SECONDS);

        assertTrue(result.stopped());
        assertEquals(0, result.records().size());
        assertEquals(0, server.requestsReceived());

        ClosedLoopResult stoppedAlready = runner.runAt(System.nanoTime() + TimeUnit.SECONDS.toNanos(30), specs(4),
                new ClosedLoopSettings(2, LONG), RecordListener.NONE, () -> true);
        assertTrue(stoppedAlready.stopped());
        assertEquals(0, server.requestsReceived());
    }
}
