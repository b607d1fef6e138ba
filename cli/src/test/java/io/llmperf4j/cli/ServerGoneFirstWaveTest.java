package io.llmperf4j.cli;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server on 127.0.0.1 killed during the first wave, while every stream of the run was still coming and before
 * any had finished: the connections refused after it are the server going away, not a configuration error, since the
 * server had begun answering (the helper's finding: "server going away" held only after a success).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServerGoneFirstWaveTest {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
    private static final Pattern GONE = Pattern.compile("(\\d+) point at the server going away: the server stopped "
            + "accepting connections at \\d\\d:\\d\\d:\\d\\d UTC, before any request succeeded but after it had begun "
            + "answering 4 requests \\(a restart, a crash, an out-of-memory kill\\?\\); check its logs\\. The URL is "
            + "right: it had answered");

    @Test
    void refusedAfterStreamsHadBegunIsTheServerGoingAway(@TempDir Path dir) throws Exception {
        try (EndlessStreams server = new EndlessStreams()) {
            CompletableFuture<CliRun> run = CompletableFuture.supplyAsync(() -> CliRun.of(
                    Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"), "token-benchmark",
                    "--model", "m", "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "200", "--stddev-output-tokens", "0", "--no-client-warmup",
                    "--no-server-metrics", "--num-concurrent-requests", "4", "--max-num-completed-requests", "12",
                    "--results-dir", dir.toString()));
            // the pre-run check's request, then the run's first four, whose streams never end
            while (server.streaming.get() < 4 && !run.isDone()) Thread.sleep(5);
            server.kill();
            CliRun done = run.get(100, TimeUnit.SECONDS);
            JsonNode summary = JSON.readTree(dir.resolve("m_40_200_llmperf4j_summary.json").toFile());
            assertEquals(0, summary.at("/run/requests_succeeded").asInt(), done::toString);
            assertEquals(4, summary.at("/errors/by_kind/CONNECTION_CLOSED").asInt(), summary.get("errors")::toString);
            int refused = summary.at("/errors/by_kind/CONNECT_FAILED").asInt();
            assertEquals(8, refused, summary.get("errors")::toString);
            String warning = RunFolder.warning(summary, "REQUESTS_FAILED");
            assertTrue(warning != null, summary.get("warnings")::toString);
            Matcher gone = GONE.matcher(warning);
            assertTrue(gone.find(), warning);
            assertEquals(refused, Integer.parseInt(gone.group(1)), warning);
            assertTrue(!warning.contains("check the configuration"), warning);
        }
    }

    /**
     * Answers its first request (the pre-run check) whole, then streams a chunk every 20 ms without end (chunked
     * SSE) until {@link #kill()} closes its port and every connection, as a killed process's kernel does. Built
     * {@link #inPrefill()}, it sends only the status and headers of each later request, never a token (a server
     * killed during the prefill).
     */
    static final class EndlessStreams implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        private final AtomicInteger requests = new AtomicInteger();
        final AtomicInteger streaming = new AtomicInteger();
        /** Set before the sockets are closed: a socket accepted as the port closed is closed too, never served. */
        private volatile boolean killed;

        /** False: after the headers nothing comes (still in the prefill); {@link #streaming} counts the headers sent. */
        private final boolean tokens;

        EndlessStreams() throws IOException {
            this(true);
        }

        /** A server that answers each request of the run with 200 and its headers, then nothing until killed. */
        static EndlessStreams inPrefill() throws IOException {
            return new EndlessStreams(false);
        }

        private EndlessStreams(boolean tokens) throws IOException {
            this.tokens = tokens;
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        Socket s = listener.accept();
                        sockets.add(s);
                        if (killed) { // accepted as kill() ran: it may have closed the others before this one came
                            s.close();
                            continue;
                        }
                        Thread t = new Thread(() -> serve(s), "endless-conn");
                        t.setDaemon(true);
                        t.start();
                    }
                } catch (IOException closed) {
                    // killed
                }
            }, "endless-accept");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        String baseUrl() {
            return "http://127.0.0.1:" + listener.getLocalPort() + "/v1";
        }

        private void serve(Socket s) {
            try (s) {
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                while (true) {
                    int length = readHead(in);
                    if (length < 0) return;
                    in.readNBytes(length);
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                            + "Transfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    boolean check = requests.getAndIncrement() == 0;
                    String chunk = "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                            + "\"delta\":{\"content\":\" word\"},\"finish_reason\":null}]}\n\n";
                    if (check) {
                        chunked(out, chunk + "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":"
                                + "[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n");
                        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        continue;
                    }
                    if (!tokens) { // the headers are out; the first token never comes
                        out.flush();
                        streaming.incrementAndGet();
                        while (!killed) Thread.sleep(20);
                        return;
                    }
                    chunked(out, chunk);
                    streaming.incrementAndGet();
                    while (true) {
                        Thread.sleep(20);
                        chunked(out, chunk);
                    }
                }
            } catch (IOException | InterruptedException killed) {
                // the connection was closed
            }
        }

        private static void chunked(OutputStream out, String data) throws IOException {
            byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
            out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
        }

        /** Reads a request head; its Content-Length, or -1 at the end of the connection. */
        private static int readHead(InputStream in) throws IOException {
            StringBuilder head = new StringBuilder();
            int c;
            while ((c = in.read()) >= 0) {
                head.append((char) c);
                if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) break;
            }
            if (c < 0) return -1;
            for (String line : head.toString().split("\r\n")) {
                if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                    return Integer.parseInt(line.substring(15).trim());
                }
            }
            return 0;
        }

        /**
         * The port first, then the connections: a connection the server ends after its port is closed is followed
         * by refusals only. Flagged first, a connection's thread that saw the flag could end its stream before the
         * port closed, and the client's next requests connected and were closed too (a loaded machine's run read
         * 8 closed and 4 refused for 4 and 8)
         */
        void kill() throws IOException {
            listener.close();
            killed = true;
            for (Socket s : sockets) s.close();
        }

        @Override
        public void close() throws IOException {
            kill();
        }
    }
}
