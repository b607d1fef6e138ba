package io.llmperf4j.engine.client;

import io.llmperf4j.engine.testserver.FaultServer;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A request is over at its stream's end event ({@code data: [DONE]}) even when the HTTP body ends later: its record
 * and its {@link RequestHandle#whenEnded} action do not wait for the body's end, which its connection drains in the
 * background (and is then reused) when it can carry another response, and which is not awaited at all otherwise. The
 * real client against {@link FaultServer} on 127.0.0.1, whose write stamps share the client's clock: orders of stamps,
 * no timing thresholds.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DrainAfterDoneSocketTest {

    private FaultServer server;
    private NettyLlmClient client;

    @BeforeEach
    void startServer() throws IOException {
        server = FaultServer.start();
    }

    @AfterEach
    void stop() throws IOException {
        if (client != null) client.close();
        server.close();
    }

    private NettyLlmClient client(UnaryOperator<ClientConfig.Builder> settings) {
        client = new NettyLlmClient(settings.apply(
                ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "test-model")).build());
        return client;
    }

    private static void assertWholeAnswer(RequestRecord r) {
        assertNull(r.failure(), () -> String.valueOf(r.failure()));
        assertEquals("Hello world!", r.generatedText());
        assertEquals(3, r.usageCompletionTokens());
    }

    /**
     * Two chains of requests, each sending its next from the previous one's end action, as the closed loop does;
     * every response's terminator comes once that end action has sent the next request (within the 200 ms a
     * connection may drain, unless the machine is starved). Each next request starts before the previous response's
     * terminator was written, and no connection carries a request before its previous body ended. A client that
     * waited for the terminator would get it 20 s on, after its record's end.
     */
    @Test
    void aClosedLoopResendsAtDoneNotAtTheLateTerminator() {
        // as many connections as requests in flight, as the load runners ask for: a draining one holds no place
        client(b -> b.maxConnections(2));
        int chains = 2;
        int perChain = 4;
        ConcurrentHashMap<String, RequestHandle> handles = new ConcurrentHashMap<>();
        List<CompletableFuture<Void>> chainsDone = new ArrayList<>();
        for (int c = 0; c < chains; c++) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            chainsDone.add(done);
            sendInChain(c, 0, perChain, handles, done);
        }
        chainsDone.forEach(CompletableFuture::join);
        for (int c = 0; c < chains; c++) {
            for (int k = 0; k < perChain; k++) {
                String name = c + "-" + k;
                RequestHandle h = handles.get(name);
                RequestRecord r = h.completion().join();
                assertWholeAnswer(r);
                long end = h.startNanos() + r.e2eNanos();
                assertTrue(end >= server.stamp("done-" + name) && end < server.stamp("end-" + name),
                        () -> name + ": the record's end is [DONE]'s arrival, not the terminator's");
                if (k + 1 < perChain) {
                    long nextStart = handles.get(c + "-" + (k + 1)).startNanos();
                    long terminator = server.stamp("end-" + name);
                    assertTrue(nextStart < terminator, () -> name + ": the next request started at " + nextStart
                            + ", after the previous response's terminator was written (" + terminator + ")");
                }
            }
        }
        assertEquals(0, server.requestsBeforeBodyEnd(), "a connection was given to a request while it drained");
    }

    private void sendInChain(int chain, int k, int perChain, ConcurrentHashMap<String, RequestHandle> handles,
                             CompletableFuture<Void> done) {
        String name = chain + "-" + k;
        Runnable next = k + 1 < perChain ? () -> sendInChain(chain, k + 1, perChain, handles, done)
                : () -> done.complete(null);
        // the handle is stored before the end action can run: the action goes through a future that waits for it;
        // the terminator is written once the next request was sent (a fixed 150 ms after [DONE] was outrun by a
        // starved I/O thread that read [DONE] and the terminator together)
        CompletableFuture<RequestHandle> self = new CompletableFuture<>();
        handles.put(name, client.send(new RequestSpec(k, "done-then-end-on-signal#" + name, 10, 20),
                () -> self.thenRun(next).thenRun(() -> server.signalRecordEnded(name))));
        self.complete(handles.get(name));
    }

    /**
     * The terminator comes 20 ms after [DONE]; the client drains for 10 s here, not the product's 200 ms, which a
     * loaded machine's late server or I/O thread could outrun (the connection then closed, and the second request
     * opened another): what is proved is that a drained connection is pooled and reused, not the limit.
     */
    @Test
    void aDrainedConnectionGoesBackToThePoolAfterItsTerminatorAndIsReused() throws InterruptedException {
        client = new NettyLlmClient(ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "test-model")
                .maxConnections(1).build(), new OpenAiChatApi(true), Duration.ofSeconds(10));
        RequestHandle first = client.send(new RequestSpec(0, "done-then-end-after-20ms#first", 10, 20));
        assertWholeAnswer(first.completion().join());
        server.stamp("end-first");
        // a draining connection is not open for the pool (no request may have it); back in the pool once drained
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (client.openConnections() == 0) {
            assertTrue(System.nanoTime() < deadline, "the drained connection never came back to the pool");
            Thread.sleep(1);
        }
        RequestRecord second = client.send(new RequestSpec(1, "ok", 10, 20)).completion().join();
        assertWholeAnswer(second);
        assertEquals(1, server.acceptedConnections(), "the drained connection is reused");
        assertEquals(1, client.connectionsOpened());
        assertEquals(0, server.requestsBeforeBodyEnd(), "the second request was written before the first body ended");
        assertEquals(List.of(1, 1), server.received().stream().map(FaultServer.Received::connection).toList());
    }

    /**
     * The second request is sent from the first one's end action, on the I/O thread at [DONE]: the first connection
     * is draining then whatever the machine's load; the first terminator is written once the second was sent (a
     * fixed 150 ms after [DONE] was outrun by a starved I/O thread, and the test thread's send came after it). A
     * client that waited for the draining connection would get it back with the terminator and send on it.
     */
    @Test
    void aRequestDoesNotWaitForADrainingConnectionButOpensAnother() {
        client(b -> b.maxConnections(1));
        CompletableFuture<RequestHandle> sent = new CompletableFuture<>();
        RequestHandle first = client.send(new RequestSpec(0, "done-then-end-on-signal#first", 10, 20), () -> {
            sent.complete(client.send(new RequestSpec(1, "ok", 10, 20)));
            server.signalRecordEnded("first");
        });
        assertWholeAnswer(first.completion().join());
        RequestHandle second = sent.join();
        assertWholeAnswer(second.completion().join());
        assertTrue(second.startNanos() < server.stamp("end-first"), "sent at once");
        assertEquals(List.of(1, 2), server.received().stream().map(FaultServer.Received::connection).toList(),
                "the first connection was draining: the second request had another");
        assertEquals(0, server.requestsBeforeBodyEnd());
        assertEquals(2, client.connectionsOpened());
    }

    @Test
    void perRequestConnectionsAreClosedAtDoneWithoutWaitingForTheTerminator() {
        client(b -> b.connectionMode(ConnectionMode.PER_REQUEST));
        assertClosedAtDone("done-then-end-unless-closed");
    }

    @Test
    void aConnectionCloseResponseIsClosedAtDone() {
        client(b -> b);
        assertClosedAtDone("done-then-end-unless-closed-connection-close");
    }

    @Test
    void aCloseDelimitedBodyIsClosedAtDone() {
        client(b -> b);
        assertClosedAtDone("done-then-close-unless-closed");
    }

    /** The client closed the connection after [DONE], before the server's body end: it did not wait for it. */
    private void assertClosedAtDone(String scenario) {
        RequestHandle h = client.send(new RequestSpec(0, scenario, 10, 20));
        RequestRecord r = h.completion().join();
        assertWholeAnswer(r);
        long closed = server.stamp("client-closed");
        assertTrue(closed >= server.stamp("done"));
        assertFalse(server.hasStamp("end"), "the server wrote the body's end: the client waited for it");
        assertTrue(h.startNanos() + r.e2eNanos() <= closed, "the record ends at [DONE]");
    }
}
