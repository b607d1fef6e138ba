package io.llmperf4j.run;

import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.HeaderWait;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server on 127.0.0.1 that accepts the connections, reads the requests and never answers (QA: 90 s without a
 * progress line, then "counting tokens of 9 answers" and "cancelled while in flight"): the real client's requests wait
 * for their headers, the progress line says so once quiet for {@value ProgressPrinter#QUIET_SECONDS} s, the
 * cancellations are not counted as answers, and the failure summary says no response headers came.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SilentServerProgressTest {
    private static final LlmApi CHAT = ApiRegistry.get("openai").adapter(true, null);
    private static final long SECOND = 1_000_000_000L;

    @Test
    void aServerThatNeverAnswersIsSaidByTheProgressLineAndTheFailureSummary() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            List<Socket> held = new CopyOnWriteArrayList<>();
            CountDownLatch requestsRead = new CountDownLatch(2);
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        Socket socket = silent.accept();
                        held.add(socket);
                        Thread reader = new Thread(() -> readRequest(socket, requestsRead));
                        reader.setDaemon(true);
                        reader.start();
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            String base = "http://127.0.0.1:" + silent.getLocalPort() + "/v1";
            List<RequestRecord> records = new ArrayList<>();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
            try (NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(CHAT.endpoint(base), "m")
                    .maxConnections(2).build(), CHAT)) {
                List<RequestHandle> handles = List.of(client.send(new RequestSpec(0, "hello", 1, 4)),
                        client.send(new RequestSpec(1, "hello", 1, 4)));
                assertTrue(requestsRead.await(30, TimeUnit.SECONDS), "the server read both requests");
                HeaderWait wait = client.headerWait();
                assertEquals(2, wait.inFlight());
                assertEquals(2, wait.waiting());

                ProgressPrinter progress = new ProgressPrinter(err, 2);
                progress.observe(client::headerWait);
                long start = wait.oldestStartNanos();
                progress.startClockAt(start);
                progress.onTick(start + 5 * SECOND); // not quiet long enough: no line
                progress.onTick(start + 12 * SECOND);
                progress.onTick(start + 15 * SECOND); // 3 s after a line: none
                progress.onTick(start + 22 * SECOND);

                long closed = System.nanoTime();
                progress.onSendingClosed(closed); // the run's end, then its cancellations, as the runners do
                client.close();
                for (RequestHandle handle : handles) records.add(handle.completion().get(10, TimeUnit.SECONDS));
                for (RequestRecord ignored : records) progress.onMeasuredWireEnd(System.nanoTime());
                for (RequestRecord record : records) progress.onRecord(record);
                progress.finish();
            } finally {
                for (Socket socket : held) socket.close();
            }
            List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
            assertEquals(3, lines.size(), lines::toString);
            assertEquals("llmperf4j: 0/2 requests done, 0 failed, 12.0 s, 0.00 req/s; no response headers yet for 2 "
                    + "of the 2 requests in flight, the oldest sent 12.0 s ago", lines.get(0));
            assertTrue(lines.get(1).endsWith("; no response headers yet for 2 of the 2 requests in flight, the oldest "
                    + "sent 22.0 s ago"), lines::toString);
            assertTrue(lines.get(2).startsWith("llmperf4j: 2/2 requests done, 0 failed, 2 cancelled, "), lines::toString);
            assertFalse(String.join("\n", lines).contains("counting tokens"), lines::toString);

            // a line printed at the first cancellation's record, while the others' are still to come
            ByteArrayOutputStream cut = new ByteArrayOutputStream();
            ProgressPrinter atTheEnd = new ProgressPrinter(new PrintStream(cut, true, StandardCharsets.UTF_8), 2);
            long end = System.nanoTime();
            atTheEnd.startClockAt(end - 90 * SECOND);
            atTheEnd.onSendingClosed(end);
            atTheEnd.onMeasuredWireEnd(end + 1);
            atTheEnd.onMeasuredWireEnd(end + 2);
            atTheEnd.onRecord(records.get(0));
            String first = cut.toString(StandardCharsets.UTF_8);
            assertTrue(first.startsWith("llmperf4j: 1/2 requests done, 0 failed, 1 cancelled, "), first);
            assertFalse(first.contains("counting tokens"), "no answer came to count: " + first);

            records.forEach(r -> assertEquals(FailureKind.CANCELLED, r.failure().kind()));
            assertEquals(List.of("CANCELLED x2, the client cancelled them at --timeout (in flight when the run ended):",
                    "  2x no response headers: the server accepted the connection and the request but never answered"),
                    FailureGate.topMessages(records));
        }
    }

    /** A request's headers and body (its Content-Length), then nothing: the server keeps the connection silent. */
    private static void readRequest(Socket socket, CountDownLatch read) {
        try {
            InputStream in = socket.getInputStream();
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) return;
                head.append((char) b);
            }
            int length = 0;
            for (String line : head.toString().split("\r\n")) {
                if (line.toLowerCase().startsWith("content-length:")) length = Integer.parseInt(line.substring(15).trim());
            }
            in.readNBytes(length);
            read.countDown();
        } catch (IOException closed) {
            // the test is over
        }
    }
}
