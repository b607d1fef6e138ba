package io.llmperf4j.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static io.llmperf4j.server.TestClient.chatBody;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * After {@code close()} returns, every connection the simulator accepted is closed (a client in flight sees its end at
 * once, as when a real server goes away), whatever its event loop was doing when the shutdown began. Netty 4.2's event
 * loop closes its channels only when it sees the shutdown between its I/O and its tasks; a loop busy running a task (a
 * chunk's timer, the timing listener) at that moment leaves without closing them, and a connection accepted but not
 * yet registered is never closed either. The tests hold a loop inside a task until its shutdown has begun: the window
 * a ServerGoneMidRunTest run once hit by chance (its in-flight request hung until the run's timeout).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CloseClosesEveryConnectionTest {

    /** Only a safety net against a connection left open, never a timing assertion. */
    private static final int READ_TIMEOUT_MILLIS = 15_000;

    @Test
    void aStreamOnALoopBusyWhenTheShutdownBeganIsClosed() throws Exception {
        EventLoopHold hold = new EventLoopHold();
        SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().ioThreads(1)
                .timeToFirstToken(Duration.ZERO).interTokenDelay(Duration.ofSeconds(1)).timingListener(hold).build());
        try (Socket streaming = new Socket("127.0.0.1", server.port());
             Socket finishing = new Socket("127.0.0.1", server.port())) {
            post(streaming, chatBody("a long stream", true, 100_000, ""));
            assertTrue(readSome(streaming).startsWith("HTTP/1.1 200"), "the stream has begun");
            post(finishing, chatBody("one token", true, 1, ""));
            hold.awaitHolding(); // the only I/O thread now runs the listener, until its shutdown begins

            server.close();

            assertClosedByTheServer(streaming);
            assertThrows(ConnectException.class, () -> new Socket("127.0.0.1", server.port()).close());
        } finally {
            server.close();
        }
    }

    @Test
    void aConnectionAcceptedWhileItsLoopWasBusyIsClosed() throws Exception {
        EventLoopHold hold = new EventLoopHold();
        // two loops: the listening socket is on the first; accepted connections go to the second, the first, ...
        SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().ioThreads(2)
                .timeToFirstToken(Duration.ZERO).timingListener(hold).build());
        try (Socket first = new Socket("127.0.0.1", server.port())) {
            post(first, chatBody("one token", true, 1, ""));
            hold.awaitHolding(); // the second loop now runs the listener, until its shutdown begins
            try (Socket onTheFreeLoop = new Socket("127.0.0.1", server.port());
                 Socket accepted = new Socket("127.0.0.1", server.port());
                 Socket probe = new Socket("127.0.0.1", server.port())) {
                assertTrue(health(onTheFreeLoop).startsWith("HTTP/1.1 200"), "round robin puts it on the free loop");
                post(accepted, chatBody("accepted", true, 5, ""));
                // the probe was accepted after it: so its registration waits in the held loop's queue
                assertTrue(health(probe).startsWith("HTTP/1.1 200"));

                server.close();

                assertClosedByTheServer(accepted);
                assertClosedByTheServer(first);
            }
        } finally {
            server.close();
        }
    }


    /** Reads until the end: a clean EOF or a reset both mean the server closed it; still open fails. */
    private static void assertClosedByTheServer(Socket socket) throws IOException {
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[8192];
        try {
            while (in.read(buffer) >= 0) {
                // what was already on its way; the end is what counts
            }
        } catch (SocketTimeoutException e) {
            fail("the connection is still open " + READ_TIMEOUT_MILLIS + " ms after close() returned");
        } catch (IOException reset) {
            // a reset is a close too (unread request bytes make the kernel send RST instead of FIN)
        }
    }

    private static void post(Socket socket, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: "
                + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
    }

    /** The status line of a GET /health on a keep-alive connection. */
    private static String health(Socket socket) throws IOException {
        socket.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        return readSome(socket).lines().findFirst().orElse("");
    }

    private static String readSome(Socket socket) throws IOException {
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        byte[] buffer = new byte[8192];
        int n = socket.getInputStream().read(buffer);
        return n < 0 ? "" : new String(buffer, 0, n, StandardCharsets.US_ASCII);
    }
}
