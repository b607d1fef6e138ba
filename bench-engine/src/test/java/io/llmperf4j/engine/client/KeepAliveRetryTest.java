package io.llmperf4j.engine.client;

import io.llmperf4j.engine.testserver.FaultServer;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.netty.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When a request may be sent again on another connection: only when it provably never reached the server whole. The
 * server's own request count is the referee: it must equal the records.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class KeepAliveRetryTest {

    private static final String AFTER_SEND = "connection closed after the request was sent, before any response byte";

    private FaultServer server;
    private final List<NettyLlmClient> clients = new ArrayList<>();

    @BeforeEach
    void startServer() throws IOException {
        server = FaultServer.start();
    }

    @AfterEach
    void stop() throws IOException {
        clients.forEach(NettyLlmClient::close);
        server.close();
    }

    private NettyLlmClient client(UnaryOperator<ClientConfig.Builder> options) {
        NettyLlmClient c = new NettyLlmClient(options.apply(ClientConfig.builder(
                EndpointUrls.chatCompletions(server.baseUrl()), "test-model").ioThreads(2).workerThreads(2)).build());
        clients.add(c);
        return c;
    }

    private static RequestRecord send(NettyLlmClient client, String scenario) {
        return client.send(new RequestSpec(0, scenario, 10, 20)).completion().join();
    }

    @Test
    void resetAfterTheServerReadTheRequestOnAReusedConnectionIsRecordedNotResent() {
        NettyLlmClient c = client(b -> b);
        assertNull(send(c, "ok").failure());
        RequestRecord r = send(c, "read-then-reset"); // the second request on the same keep-alive connection
        assertEquals(FailureKind.CONNECTION_CLOSED, r.failure().kind());
        assertEquals(-1, r.failure().code());
        String message = r.failure().message();
        assertTrue(message.startsWith(AFTER_SEND + " (127.0.0.1:" + server.port()), message);
        assertTrue(message.contains("may have closed it as idle"), message);
        assertEquals(0, r.dataEventCount());
        assertEquals(-1, r.ttftNanos());
        assertEquals(List.of("ok", "read-then-reset"), prompts(), "the server saw the failed request exactly once");
        assertEquals(1, server.acceptedConnections(), "it went out on the reused connection and nowhere else");

        assertNull(send(c, "ok").failure(), "the next request gets a new connection");
        assertEquals(3, server.requestsReceived());
        assertEquals(2, server.acceptedConnections());
    }

    @Test
    void resetAfterTheServerReadTheRequestOnAFreshConnectionIsRecorded() {
        RequestRecord r = send(client(b -> b), "read-then-reset");
        assertEquals(FailureKind.CONNECTION_CLOSED, r.failure().kind());
        assertTrue(r.failure().message().startsWith(AFTER_SEND), r.failure().message());
        assertFalse(r.failure().message().contains("keep-alive"), "a fresh connection was never idle");
        assertEquals(List.of("read-then-reset"), prompts());
    }

    @Test
    void aPreconnectedConnectionThatNeverCarriedAResponseIsNotCalledReusedKeepAlive() {
        // QA: a TLS port reached with http:// reset every preconnected connection, and the message blamed an idle
        // keep-alive connection that had never been used
        NettyLlmClient c = client(b -> b);
        assertEquals(1, c.preconnect(1).length);
        RequestRecord r = send(c, "read-then-reset");
        assertEquals(FailureKind.CONNECTION_CLOSED, r.failure().kind());
        assertTrue(r.failure().message().startsWith(AFTER_SEND + " (127.0.0.1:" + server.port()),
                r.failure().message());
        assertFalse(r.failure().message().contains("keep-alive"), r.failure().message());
        assertEquals(1, server.acceptedConnections(), "it went out on the preconnected connection");
    }

    @Test
    void serverCountEqualsRecordsWhenResetsFollowReusedConnections() {
        NettyLlmClient c = client(b -> b);
        int failed = 0;
        for (int i = 0; i < 10; i++) {
            assertNull(send(c, "ok").failure());
            RequestRecord r = send(c, "read-then-reset");
            if (r.failure() != null && r.failure().kind() == FailureKind.CONNECTION_CLOSED) failed++;
        }
        assertEquals(10, failed);
        assertEquals(20, server.requestsReceived(), "every record is one request at the server, no more");
    }

    @Test
    void anIdleConnectionClosedByTheServerIsReplaced() throws InterruptedException {
        // FIN while idle, as a server's keep-alive timeout does; the client sees it before the next request
        NettyLlmClient c = client(b -> b);
        for (int i = 1; i <= 5; i++) {
            RequestRecord r = send(c, "ok-then-close");
            assertNull(r.failure(), () -> String.valueOf(r.failure()));
            assertEquals("Hello world!", r.generatedText());
            awaitZero(c::openConnections, "the client never saw the server close the idle connection");
        }
        assertEquals(5, server.requestsReceived(), "exactly the requests recorded");
        assertEquals(5, server.acceptedConnections());
        assertEquals(5, c.connectionsOpened());
    }

    @Test
    void aResetOfAnIdleConnectionThatIsOnlySeenByTheWriteIsRetriedOnce() throws Exception {
        // One event loop, blocked while the server resets the idle connection: the pool still thinks it is alive and
        // hands it out, and the write into it fails. Nothing reached the server, so the request moves on.
        NettyLlmClient c = client(b -> b.ioThreads(1));
        assertNull(send(c, "ok-then-reset-on-signal").failure());

        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<?> blocker = c.ioGroup().next().submit(() -> {
            blocked.countDown();
            release.await(20, TimeUnit.SECONDS);
            return null;
        });
        try {
            assertTrue(blocked.await(20, TimeUnit.SECONDS));
            server.signalReset();
            awaitAtLeast(server::closedConnections, 1, "the server never reset the idle connection");
            // loopback delivers the RST within close(); the pause is only a margin, never an assertion
            Thread.sleep(100);
            RequestHandle handle = c.send(new RequestSpec(0, "ok", 10, 20));
            release.countDown();
            blocker.sync();
            RequestRecord r = handle.completion().join();
            assertNull(r.failure(), () -> String.valueOf(r.failure()));
            assertEquals("Hello world!", r.generatedText());
        } finally {
            release.countDown();
        }
        assertEquals(List.of("ok-then-reset-on-signal", "ok"), prompts(), "the moved request reached the server once");
        assertEquals(2, server.acceptedConnections());
        assertEquals(2, c.connectionsOpened());
    }

    private List<String> prompts() {
        return server.received().stream().map(FaultServer.Received::prompt).toList();
    }

    private static void awaitZero(IntSupplier value, String failure) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (value.getAsInt() != 0) {
            if (System.nanoTime() > deadline) throw new AssertionError(failure);
            Thread.sleep(2);
        }
    }

    private static void awaitAtLeast(IntSupplier value, int atLeast, String failure) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (value.getAsInt() < atLeast) {
            if (System.nanoTime() > deadline) throw new AssertionError(failure);
            Thread.sleep(2);
        }
    }
}
