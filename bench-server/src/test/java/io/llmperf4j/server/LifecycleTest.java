package io.llmperf4j.server;

import org.junit.jupiter.api.Test;

import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static io.llmperf4j.server.TestClient.chatBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LifecycleTest {

    @Test
    void bindsAFreePortAndReportsItsBaseUrl() {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.defaults())) {
            assertTrue(server.port() > 0);
            assertEquals("http://127.0.0.1:" + server.port() + "/v1", server.baseUrl());
            assertTrue(List.of("epoll", "nio").contains(server.transportName()));
            assertEquals(0, server.activeSequences());
            assertEquals(0, server.queuedRequests());
        }
    }

    @Test
    void aPortInUseFailsWithTheAddress() {
        try (SimulatedServer first = SimulatedServer.start(SimulatorConfig.defaults())) {
            UncheckedIOException e = assertThrows(UncheckedIOException.class, () ->
                    SimulatedServer.start(SimulatorConfig.builder().port(first.port()).build()));
            assertTrue(e.getMessage().startsWith("could not bind 127.0.0.1:" + first.port()), e.getMessage());
        }
    }

    @Test
    void closeEndsOpenStreamsFreesSlotsAndCompletesTheCloseFuture() throws Exception {
        List<RequestTiming> timings = new CopyOnWriteArrayList<>();
        SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .maxConcurrentSequences(1).timingListener(timings::add).build());
        var closed = server.closeFuture();
        Socket streaming = new Socket("127.0.0.1", server.port());
        Socket queued = new Socket("127.0.0.1", server.port());
        try {
            send(streaming, chatBody("long", true, 1_000_000, ""));
            long deadlineNanos = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            // the long one holds the slot first: sent together, the other could get it first, end, and queue nothing
            while (server.activeSequences() < 1 && System.nanoTime() < deadlineNanos) Thread.sleep(2);
            send(queued, chatBody("queued", true, 5, ""));
            while (server.queuedRequests() < 1 && System.nanoTime() < deadlineNanos) Thread.sleep(2);
            assertEquals(1, server.queuedRequests());

            server.close();
            server.close(); // idempotent
            closed.get(10, TimeUnit.SECONDS);
            server.awaitClose();
            assertEquals(2, timings.size());
            assertTrue(timings.stream().allMatch(t -> t.outcome() == RequestTiming.Outcome.ABORTED));
            assertEquals(0, server.queuedRequests());
            assertEquals(0, server.activeSequences());
            assertThrows(ConnectException.class, () -> new Socket("127.0.0.1", server.port()).close());
        } finally {
            streaming.close();
            queued.close();
        }
    }

    private static void send(Socket socket, String body) throws Exception {
        byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: "
                + bytes.length + "\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
    }
}
