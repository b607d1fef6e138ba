package io.llmperf4j.engine.testserver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import javax.net.ServerSocketFactory;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPOutputStream;

/**
 * A fault-injecting HTTP/1.1 server on 127.0.0.1 with one blocking thread per connection, for byte-exact control of
 * what the client reads. The user message (the prompt) names the scenario; see {@link #respond}. Keep-alive is
 * honoured, so connection reuse can be counted with {@link #acceptedConnections()}.
 */
public final class FaultServer implements AutoCloseable {

    /** One request as the server read it. */
    public record Received(String method, String target, Map<String, String> headers, byte[] body, String prompt,
                           int connection) {
        public String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    public static final int BIG_CONTENT_CHARS = 200 * 1024;
    /** The X-Request-Id response header of the stream-error scenarios. */
    public static final String HEADER_REQUEST_ID = "server-request-42";
    /** The body of scenario problem-403. */
    public static final String PROBLEM_403 = "{\"type\":\"https://example.com/probs/no-access\",\"title\":"
            + "\"Forbidden\",\"status\":403,\"detail\":\"the key has no access to model test-model\","
            + "\"instance\":\"/v1/chat/completions\"}";
    /** The body of scenarios problem-200 and problem-200-as-json. */
    public static final String PROBLEM_200 = "{\"type\":\"about:blank\",\"title\":\"Service Unavailable\","
            + "\"status\":503,\"detail\":\"upstream model is loading, retry in 30 s\"}";

    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * How long the "-unless-closed" scenarios wait for the client's close after [DONE] before they end the body: a
     * client that closes at [DONE] returns the wait at once, however late a starved I/O thread reads it (150 ms was
     * outrun); only a client that waits for the body's end pays it, and fails.
     */
    private static final int CLIENT_CLOSE_WAIT_MILLIS = 10_000;

    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fault-server");
        t.setDaemon(true);
        return t;
    });
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicInteger acceptedConnections = new AtomicInteger();
    private final AtomicInteger requestsReceived = new AtomicInteger();
    private final AtomicInteger closedConnections = new AtomicInteger();
    /** Responses whose connection already held the next request's bytes before their body had ended. */
    private final AtomicInteger requestsBeforeBodyEnd = new AtomicInteger();
    /** Resets the test allows, one each: "ok-then-reset-on-signal" and "done-then-reset" wait for one. */
    private final Semaphore resets = new Semaphore(0);
    /** Events the test saw the client decode, one permit each: "gzip" writes its next event after one. */
    private final Semaphore decodedEvents = new Semaphore(0);
    /** Late body ends the test allows, one each: the "-then-late-" scenarios end their body after one. */
    private final Semaphore lateEnds = new Semaphore(0);
    /** Per "done-then-end-on-signal#name" response: released when the test says its record has ended. */
    private final Map<String, CountDownLatch> recordsEnded = new ConcurrentHashMap<>();
    private final List<Received> received = new CopyOnWriteArrayList<>();
    /** {@link System#nanoTime()} just before the writes the end-of-stream scenarios name, by name. */
    private final Map<String, Long> stamps = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private FaultServer(ServerSocketFactory factory) throws IOException {
        this.server = factory.createServerSocket(0, 200, InetAddress.getLoopbackAddress());
        threads.execute(this::acceptLoop);
    }

    public static FaultServer start() throws IOException {
        return new FaultServer(ServerSocketFactory.getDefault());
    }

    public static FaultServer start(ServerSocketFactory factory) throws IOException {
        return new FaultServer(factory);
    }

    public int port() {
        return server.getLocalPort();
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + port() + "/v1";
    }

    public int acceptedConnections() {
        return acceptedConnections.get();
    }

    public int requestsReceived() {
        return requestsReceived.get();
    }

    /** Connections whose socket the server has closed (FIN or RST already on the wire). */
    public int closedConnections() {
        return closedConnections.get();
    }

    /**
     * Times a request's bytes were already waiting on its connection when the previous response's body end (the
     * chunked terminator) was about to be written: the client gave the connection to a request before that body ended.
     */
    public int requestsBeforeBodyEnd() {
        return requestsBeforeBodyEnd.get();
    }

    /** Lets one connection waiting for the test's word ("ok-then-reset-on-signal", "done-then-reset") reset. */
    public void signalReset() {
        resets.release();
    }

    /** Lets "gzip" write its next event: the client has decoded the one before ({@code RequestHandle.eventsDecoded}). */
    public void signalEventDecoded() {
        decodedEvents.release();
    }

    /**
     * Lets one response waiting after its end event ("done-then-late-end", "done-then-late-close",
     * "anthropic-stop-then-late-end") end its body: the test saw its record end.
     */
    public void signalLateEnd() {
        lateEnds.release();
    }

    /** Lets "done-then-end-on-signal#name" write its terminator: the test saw that record end. */
    public void signalRecordEnded(String name) {
        recordEnded(name).countDown();
    }

    private CountDownLatch recordEnded(String name) {
        return recordsEnded.computeIfAbsent(name, n -> new CountDownLatch(1));
    }

    public List<Received> received() {
        return List.copyOf(received);
    }

    /**
     * The server's {@link System#nanoTime()} (the same clock as the client's in this JVM) just before a write:
     * "done" ([DONE]'s), "end" (the body's end: the chunked terminator, the close or the reset); waits for it.
     */
    public long stamp(String name) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Long at;
        while ((at = stamps.get(name)) == null) { // a record may complete before the server's next write
            if (System.nanoTime() > deadline) throw new IllegalStateException("no stamp " + name + ": " + stamps.keySet());
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for stamp " + name, e);
            }
        }
        return at;
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        threads.shutdownNow();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket s = server.accept();
                int connection = acceptedConnections.incrementAndGet();
                sockets.add(s);
                threads.execute(() -> serve(s, connection));
            } catch (IOException e) {
                if (closed) return;
            }
        }
    }

    private void serve(Socket socket, int connection) {
        try (socket) {
            socket.setTcpNoDelay(true);
            InputStream in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            while (!closed) {
                Received r = readRequest(in, connection);
                if (r == null) return;
                requestsReceived.incrementAndGet();
                received.add(r);
                if (!respond(r, socket, in, out)) return;
            }
        } catch (IOException e) {
            // the client went away, or we closed: nothing to do
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // shut down while waiting for a signal
        } finally {
            closedConnections.incrementAndGet(); // try-with-resources closed the socket before this runs
            sockets.remove(socket);
        }
    }

    /** Writes the scenario's response; false when the connection must not be reused. */
    private boolean respond(Received r, Socket socket, InputStream in, OutputStream out)
            throws IOException, InterruptedException {
        String scenario = r.prompt();
        int tag = scenario.indexOf('#');
        if (tag > 0 && scenario.startsWith("done-then-end-on-signal#")) {
            // "done-then-end-on-signal#name": chunked, [DONE] ("done-name"), then the terminator ("end-name") once the
            // test says the record has ended (a fixed pause was outrun by a starved I/O thread that read [DONE] after
            // it); keep-alive. A client that waits for the terminator gets it 20 s on, after its [DONE]
            String name = scenario.substring(tag + 1);
            sseHead(out);
            for (String e : Streams.standard()) {
                if (e.equals("[DONE]")) stamps.put("done-" + name, System.nanoTime());
                chunk(out, sse(e, "\n", true));
            }
            recordEnded(name).await(20, TimeUnit.SECONDS);
            if (in.available() > 0) requestsBeforeBodyEnd.incrementAndGet();
            stamps.put("end-" + name, System.nanoTime());
            end(out);
            return true;
        }
        if (tag > 0 && scenario.startsWith("done-then-end-after-")) {
            // "done-then-end-after-150ms#name": chunked, [DONE] ("done-name"), then the terminator ("end-name") that
            // many ms later; keep-alive
            long millis = Long.parseLong(scenario.substring("done-then-end-after-".length(), tag - 2));
            String name = scenario.substring(tag + 1);
            sseHead(out);
            for (String e : Streams.standard()) {
                if (e.equals("[DONE]")) stamps.put("done-" + name, System.nanoTime());
                chunk(out, sse(e, "\n", true));
            }
            Thread.sleep(millis);
            if (in.available() > 0) requestsBeforeBodyEnd.incrementAndGet();
            stamps.put("end-" + name, System.nanoTime());
            end(out);
            return true;
        }
        switch (scenario) {
            case "ok":
                sseHead(out);
                for (String e : Streams.standard()) chunk(out, sse(e, "\n", true));
                end(out);
                return true;
            case "ok-then-close":
                // a complete keep-alive response, then the server drops the idle connection (keep-alive timeout)
                sseHead(out);
                for (String e : Streams.standard()) chunk(out, sse(e, "\n", true));
                end(out);
                return false;
            case "ok-then-reset-on-signal":
                // a complete keep-alive response; then, idle, the connection is reset when the test says so
                sseHead(out);
                for (String e : Streams.standard()) chunk(out, sse(e, "\n", true));
                end(out);
                if (!resets.tryAcquire(20, TimeUnit.SECONDS)) return false;
                socket.setSoLinger(true, 0);
                return false;
            case "read-then-reset":
                // the whole request was read (and counted), then RST before any response byte: a crash or an
                // overload reset
                socket.setSoLinger(true, 0);
                return false;
            case "ok-one-write": {
                sseHead(out);
                StringBuilder all = new StringBuilder();
                for (String e : Streams.standard()) all.append(sse(e, "\n", true));
                chunk(out, all.toString());
                end(out);
                return true;
            }
            case "ok-crlf": {
                // CRLF, "data:" without space, a comment and event:/id: lines that chat ignores
                sseHead(out);
                chunk(out, ": keepalive\r\n\r\n");
                List<String> events = Streams.standard();
                for (int i = 0; i < events.size(); i++) {
                    String prefix = i == 1 ? "event: message\r\nid: " + i + "\r\nretry: 1000\r\n" : "";
                    chunk(out, prefix + sse(events.get(i), "\r\n", false));
                }
                end(out);
                return true;
            }
            case "ok-cr":
                sseHead(out);
                for (String e : Streams.standard()) chunk(out, sse(e, "\r", true));
                end(out);
                return true;
            case "ok-bytewise": {
                // every byte its own HTTP chunk and TCP write, CRLF line ends: CR and LF arrive in separate reads
                sseHead(out);
                StringBuilder all = new StringBuilder();
                for (String e : Streams.standard()) all.append(sse(e, "\r\n", true));
                for (byte b : all.toString().getBytes(StandardCharsets.UTF_8)) {
                    out.write(("1\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(b);
                    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
                end(out);
                return true;
            }
            case "until-close": {
                // HTTP/1.0 style: no length, no chunking, the body ends when the server closes
                head(out, "200 OK", "text/event-stream", "Connection: close\r\n");
                StringBuilder all = new StringBuilder();
                for (String e : Streams.standard()) all.append(sse(e, "\n", true));
                out.write(all.toString().getBytes(StandardCharsets.UTF_8));
                out.flush();
                return false;
            }
            case "until-close-no-end": // HTTP/1.0 style, closed between events: no finish, no [DONE] (a killed server)
                return untilClose(out, sse(Streams.role(), "\n", true) + sse(Streams.content("Hello"), "\n", true));
            case "until-close-cut-event": // the same, closed part-way through the third event's JSON
                return untilClose(out, sse(Streams.role(), "\n", true) + sse(Streams.content("Hello"), "\n", true)
                        + sse(Streams.content(" world"), "\n", true).substring(0, 20));
            case "until-close-cut-line": // the same, closed after the first bytes of a line that make no event
                return untilClose(out, sse(Streams.role(), "\n", true) + sse(Streams.content("Hello"), "\n", true)
                        + "dat");
            case "until-close-finish-no-done": // the finish, then the close: llmperf's success
                return untilClose(out, sse(Streams.role(), "\n", true) + sse(Streams.content("Hello"), "\n", true)
                        + sse(Streams.finish("stop"), "\n", true));
            case "until-close-no-last-blank-line": // the finish event's blank line left out, then the close
                return untilClose(out, sse(Streams.role(), "\n", true) + sse(Streams.content("Hello"), "\n", true)
                        + "data: " + Streams.finish("stop") + "\n");
            case "until-close-finish-usage-late": // the finish and usage, no [DONE], the close ("end") 0.5 s later
                return lateEnd(out, false, Streams.role(), Streams.content("Hello"), Streams.finish("stop"),
                        Streams.usage(12, 1));
            case "chunked-finish-usage-late": // the same, chunked: the terminator ("end") 0.5 s later
                return lateEnd(out, true, Streams.role(), Streams.content("Hello"), Streams.finish("stop"),
                        Streams.usage(12, 1));
            case "until-close-no-end-late": // two events, no finish, the close ("end") 0.5 s later
                return lateEnd(out, false, Streams.role(), Streams.content("Hello"));
            case "chunked-cut-event": // chunked, closed part-way through the third event, before the last chunk
                sseHead(out);
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, sse(Streams.content("Hello"), "\n", true));
                chunk(out, sse(Streams.content(" world"), "\n", true).substring(0, 20));
                return false;
            case "chunked-cut-after-finish": // chunked, the finish, then the close before [DONE] and the last chunk
                sseHead(out);
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, sse(Streams.content("Hello"), "\n", true));
                chunk(out, sse(Streams.finish("stop"), "\n", true));
                return false;
            case "chunked-end-cut-event": // chunked and ended cleanly (its last chunk) part-way through the third event
                sseHead(out);
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, sse(Streams.content("Hello"), "\n", true));
                chunk(out, sse(Streams.content(" world"), "\n", true).substring(0, 20));
                end(out);
                return true;
            case "chunked-end-cut-after-finish": // the same after the finish: a half event, then the last chunk
                sseHead(out);
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, sse(Streams.content("Hello"), "\n", true));
                chunk(out, sse(Streams.finish("stop"), "\n", true));
                chunk(out, sse(Streams.content(" world"), "\n", true).substring(0, 20));
                end(out);
                return true;
            case "length-end-cut-event": { // a Content-Length the body reaches, ending part-way through the third event
                String events = sse(Streams.role(), "\n", true) + sse(Streams.content("Hello"), "\n", true)
                        + sse(Streams.content(" world"), "\n", true).substring(0, 20);
                head(out, "200 OK", "text/event-stream", "Content-Length: " + events.length() + "\r\n");
                out.write(events.getBytes(StandardCharsets.UTF_8));
                out.flush();
                return true;
            }
            case "length-cut": { // a Content-Length the body never reaches: two events, then the close
                String events = sse(Streams.role(), "\n", true) + sse(Streams.content("Hello"), "\n", true);
                head(out, "200 OK", "text/event-stream", "Content-Length: " + (events.length() + 500) + "\r\n");
                out.write(events.getBytes(StandardCharsets.UTF_8));
                out.flush();
                return false;
            }
            case "json-length-cut": { // a whole JSON answer announced as 2,048 bytes: 812 of them, then the close
                String json = "{\"id\":\"x\",\"object\":\"chat.completion\",\"note\":\"" + "a".repeat(2048) + "\"}";
                head(out, "200 OK", "application/json", "Content-Length: 2048\r\n");
                out.write(json.substring(0, 812).getBytes(StandardCharsets.UTF_8));
                out.flush();
                return false;
            }
            case "status-401": {
                String auth = r.headers().getOrDefault("authorization", "");
                String body = "{\"error\":{\"message\":\"Incorrect API key provided: " + auth
                        + "\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}";
                fixed(out, "401 Unauthorized", "application/json", body, "");
                return true;
            }
            case "status-429":
                fixed(out, "429 Too Many Requests", "text/plain", "rate limit exceeded, retry later",
                        "Retry-After: 7\r\n");
                return true;
            case "status-500":
                head(out, "500 Internal Server Error", "text/plain",
                        "Transfer-Encoding: chunked\r\nConnection: close\r\n");
                chunk(out, "Internal ");
                chunk(out, "Server Error");
                end(out);
                return false;
            case "json-error":
                fixed(out, "200 OK", "application/json",
                        "{\"error\":{\"message\":\"bad things\",\"type\":\"BadRequestError\",\"code\":400}}", "");
                return true;
            case "stream-error":
                head(out, "200 OK", "text/event-stream", "Transfer-Encoding: chunked\r\nX-Request-Id: "
                        + HEADER_REQUEST_ID + "\r\n");
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, sse(Streams.content("Hel"), "\n", true));
                chunk(out, sse(Streams.error("model overloaded", 503), "\n", true));
                chunk(out, sse("[DONE]", "\n", true));
                end(out);
                return true;
            case "stream-error-first": // the error before any chunk with an id: the header's id is all there is
                head(out, "200 OK", "text/event-stream", "Transfer-Encoding: chunked\r\nX-Request-Id: "
                        + HEADER_REQUEST_ID + "\r\n");
                chunk(out, sse(Streams.error("model overloaded", 503), "\n", true));
                chunk(out, sse("[DONE]", "\n", true));
                end(out);
                return true;
            case "stream-error-string-code":
                sseHead(out);
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, sse(Streams.error("internal failure", "server_error"), "\n", true));
                chunk(out, sse("[DONE]", "\n", true));
                end(out);
                return true;
            case "drop":
                sseHead(out);
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, sse(Streams.content("Hello"), "\n", true));
                return false; // closed without the chunked terminator
            case "reset":
                sseHead(out);
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, sse(Streams.content("Hello"), "\n", true));
                socket.setSoLinger(true, 0); // RST instead of FIN
                return false;
            case "malformed":
                sseHead(out);
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, sse(Streams.content("Hello"), "\n", true));
                chunk(out, sse("{\"choices\": [oops", "\n", true));
                chunk(out, sse(Streams.content(" world"), "\n", true));
                chunk(out, sse(Streams.finish("stop"), "\n", true));
                chunk(out, sse("[DONE]", "\n", true));
                end(out);
                return true;
            case "no-done":
                sseHead(out);
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, sse(Streams.content("Hello"), "\n", true));
                chunk(out, sse(Streams.finish("length"), "\n", true));
                end(out);
                return true;
            case "no-done-no-finish":
                sseHead(out);
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, sse(Streams.content("Hello"), "\n", true));
                end(out);
                return true;
            case "big":
                sseHead(out);
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, sse(Streams.content(bigContent()), "\n", true));
                chunk(out, sse(Streams.finish("stop"), "\n", true));
                chunk(out, sse("[DONE]", "\n", true));
                end(out);
                return true;
            case "hang":
                sseHead(out);
                drainUntilClosed(in);
                return false;
            case "content-then-hang":
                sseHead(out);
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, sse(Streams.content("Hello"), "\n", true));
                drainUntilClosed(in);
                return false;
            case "html-200": // a proxy's login page, with a length: not a stream
                fixed(out, "200 OK", "text/html; charset=utf-8",
                        "<html><body>Please log in to the proxy</body></html>", "");
                return true;
            case "html-200-until-close": // the same page without a length: it ends with the connection
                head(out, "200 OK", "text/html", "Connection: close\r\n");
                out.write("<html><body>Please log in to the proxy</body></html>".getBytes(StandardCharsets.UTF_8));
                out.flush();
                return false;
            case "problem-403": // RFC 9457 problem details, as gateways and Java/.NET servers answer
                fixed(out, "403 Forbidden", "application/problem+json", PROBLEM_403, "");
                return true;
            case "problem-200": // a gateway's problem under a 200 instead of the stream
                fixed(out, "200 OK", "application/problem+json", PROBLEM_200, "");
                return true;
            case "problem-200-as-json": // the same problem as plain JSON
                fixed(out, "200 OK", "application/json", PROBLEM_200, "");
                return true;
            case "empty-200-html":
                fixed(out, "200 OK", "text/html", "", "");
                return true;
            case "ok-as-text-plain": { // a real stream under another type: still measured
                head(out, "200 OK", "text/plain", "Transfer-Encoding: chunked\r\n");
                for (String e : Streams.standard()) chunk(out, sse(e, "\n", true));
                end(out);
                return true;
            }
            case "ok-without-content-type": {
                out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                for (String e : Streams.standard()) chunk(out, sse(e, "\n", true));
                end(out);
                return true;
            }
            case "vllm-error": // older vLLM: a top-level error object, then [DONE]
                sseHead(out);
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, sse(Streams.content("Hel"), "\n", true));
                chunk(out, sse("{\"object\":\"error\",\"message\":\"out of KV cache\",\"type\":"
                        + "\"InternalServerError\",\"param\":null,\"code\":500}", "\n", true));
                chunk(out, sse("[DONE]", "\n", true));
                end(out);
                return true;
            case "event-error": // an SSE event named error (TGI, gateways)
                sseHead(out);
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, sse(Streams.content("Hel"), "\n", true));
                chunk(out, "event: error\n" + sse("{\"message\":\"model overloaded\",\"code\":\"503\"}", "\n", true));
                end(out);
                return true;
            case "event-error-wrapped": // event: error around an OpenAI error member with a non-numeric code
                sseHead(out);
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, "event: error\n" + sse("{\"error\":{\"message\":\"overloaded\",\"code\":\"overloaded\"}}", "\n", true));
                end(out);
                return true;
            case "event-error-text": // event: error whose data is not JSON
                sseHead(out);
                chunk(out, sse(Streams.role(), "\n", true));
                chunk(out, "event: error\n" + sse("upstream timed out", "\n", true));
                end(out);
                return true;
            case "done-then-late-end": // chunked: [DONE], then the terminator late (a gateway's late end)
                sseHead(out);
                writeUntilDone(out);
                awaitLateEnd();
                stamps.put("end", System.nanoTime());
                end(out);
                return true;
            case "done-then-late-close": { // close-delimited: [DONE], then the close late
                head(out, "200 OK", "text/event-stream", "Connection: close\r\n");
                List<String> events = Streams.standard();
                for (String e : events) {
                    if (e.equals("[DONE]")) stamps.put("done", System.nanoTime());
                    out.write(sse(e, "\n", true).getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
                awaitLateEnd();
                stamps.put("end", System.nanoTime());
                return false;
            }
            case "done-then-reset": // chunked: [DONE], then RST instead of the terminator
                sseHead(out);
                writeUntilDone(out);
                // the reset waits for the test's word that the client has read [DONE] (its record ended there): a
                // fixed pause was outrun by a starved I/O thread that read [DONE] after it. A client that waits for
                // the body's end is reset 20 s on, past its idle timeout
                resets.tryAcquire(20, TimeUnit.SECONDS);
                stamps.put("end", System.nanoTime());
                socket.setSoLinger(true, 0);
                return false;
            case "done-then-end-unless-closed": // chunked keep-alive: [DONE], then the client's close or the terminator
                sseHead(out);
                writeUntilDone(out);
                return !closedByClientWithin(socket, in, CLIENT_CLOSE_WAIT_MILLIS) && endStamped(out);
            case "done-then-end-unless-closed-connection-close": // the same, the response saying Connection: close
                head(out, "200 OK", "text/event-stream", "Transfer-Encoding: chunked\r\nConnection: close\r\n");
                writeUntilDone(out);
                if (!closedByClientWithin(socket, in, CLIENT_CLOSE_WAIT_MILLIS)) endStamped(out);
                return false;
            case "done-then-close-unless-closed": { // close-delimited: [DONE], then the client's close or the server's
                head(out, "200 OK", "text/event-stream", "Connection: close\r\n");
                for (String e : Streams.standard()) {
                    if (e.equals("[DONE]")) stamps.put("done", System.nanoTime());
                    out.write(sse(e, "\n", true).getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
                if (!closedByClientWithin(socket, in, CLIENT_CLOSE_WAIT_MILLIS)) stamps.put("end", System.nanoTime());
                return false;
            }
            case "done-never-ends": // chunked: [DONE], and neither the terminator nor a close ever comes
                sseHead(out);
                writeUntilDone(out);
                drainUntilClosed(in);
                return false;
            case "content-after-done": // a content event after [DONE], then the terminator: keep-alive is fine
                sseHead(out);
                writeUntilDone(out);
                chunk(out, sse(Streams.content(" after"), "\n", true));
                chunk(out, sse(Streams.finish("length"), "\n", true));
                end(out);
                return true;
            case "anthropic-stop-then-late-end": { // Anthropic's end event, message_stop, then a late terminator
                sseHead(out);
                chunk(out, "event: message_start\n" + sse("{\"type\":\"message_start\",\"message\":{\"id\":"
                        + "\"msg_42\",\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}", "\n", true));
                for (String text : List.of("Hello", " world", "!")) {
                    chunk(out, "event: content_block_delta\n" + sse("{\"type\":\"content_block_delta\",\"index\":0,"
                            + "\"delta\":{\"type\":\"text_delta\",\"text\":\"" + text + "\"}}", "\n", true));
                }
                chunk(out, "event: message_delta\n" + sse("{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
                        + "\"end_turn\"},\"usage\":{\"output_tokens\":3}}", "\n", true));
                stamps.put("done", System.nanoTime());
                chunk(out, "event: message_stop\n" + sse("{\"type\":\"message_stop\"}", "\n", true));
                awaitLateEnd();
                stamps.put("end", System.nanoTime());
                end(out);
                return true;
            }
            case "gzip": { // a gateway that compresses the stream anyway: gzip, flushed after every event
                head(out, "200 OK", "text/event-stream", "Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n");
                ByteArrayOutputStream compressed = new ByteArrayOutputStream();
                try (GZIPOutputStream gzip = new GZIPOutputStream(compressed, true)) {
                    int k = 0;
                    for (String e : Streams.standard()) {
                        gzip.write(sse(e, "\n", true).getBytes(StandardCharsets.UTF_8));
                        gzip.flush();
                        // each event's arrival told from the next one's: an event is written once the test says the
                        // client decoded the one before (150 ms apart was outrun by a starved I/O thread's late read)
                        if (k > 0) decodedEvents.tryAcquire(5, TimeUnit.SECONDS);
                        stamps.put("event-" + k++, System.nanoTime()); // "event-1" is the first content event
                        chunkBytes(out, compressed.toByteArray());
                        compressed.reset();
                    }
                }
                chunkBytes(out, compressed.toByteArray()); // the gzip trailer
                end(out);
                return true;
            }
            case "status-503-gzip": { // an error body gzipped by a gateway, with a length
                ByteArrayOutputStream compressed = new ByteArrayOutputStream();
                try (GZIPOutputStream gzip = new GZIPOutputStream(compressed)) {
                    gzip.write("{\"error\":{\"message\":\"upstream overloaded\",\"code\":503}}"
                            .getBytes(StandardCharsets.UTF_8));
                }
                head(out, "503 Service Unavailable", "application/json", "Content-Encoding: gzip\r\nContent-Length: "
                        + compressed.size() + "\r\n");
                out.write(compressed.toByteArray());
                out.flush();
                return true;
            }
            case "gzip-not-gzip": // a stream that claims gzip but is plain text
            case "deflate-not-deflate": { // the same, claiming deflate
                String coding = scenario.substring(0, scenario.indexOf('-'));
                head(out, "200 OK", "text/event-stream", "Content-Encoding: " + coding
                        + "\r\nTransfer-Encoding: chunked\r\n");
                for (String e : Streams.standard()) chunk(out, sse(e, "\n", true));
                end(out);
                return false;
            }
            case "gzip-then-garbage": { // two events gzipped, then bytes that are not the rest of the gzip stream
                head(out, "200 OK", "text/event-stream", "Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n");
                ByteArrayOutputStream compressed = new ByteArrayOutputStream();
                GZIPOutputStream gzip = new GZIPOutputStream(compressed, true);
                gzip.write((sse(Streams.role(), "\n", true) + sse(Streams.content("Hello"), "\n", true))
                        .getBytes(StandardCharsets.UTF_8));
                gzip.flush();
                chunkBytes(out, compressed.toByteArray());
                Thread.sleep(50); // the two events are decoded before the garbage comes
                chunkBytes(out, new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x00, 0x13, 0x37});
                end(out);
                return false;
            }
            case "status-500-not-gzip": { // an error body that claims gzip but is plain JSON
                String body = "{\"error\":{\"message\":\"boom\"}}";
                head(out, "500 Internal Server Error", "application/json", "Content-Encoding: gzip\r\n"
                        + "Content-Length: " + body.length() + "\r\n");
                out.write(body.getBytes(StandardCharsets.UTF_8));
                out.flush();
                return false;
            }
            case "brotli": // a coding the client does not decode
                head(out, "200 OK", "text/event-stream", "Content-Encoding: br\r\nTransfer-Encoding: chunked\r\n");
                chunkBytes(out, new byte[] {(byte) 0x8b, 0x02, (byte) 0x80, 0x68, 0x69, 0x03});
                end(out);
                return true;
            case "redirect-308": // to https, with a key in the query string
                fixed(out, "308 Permanent Redirect", "text/html", "", "Location: https://127.0.0.1:" + port()
                        + "/v1/chat/completions?api-version=2024-06-01&api-key=gw-0123456789abcdef\r\n");
                return true;
            case "redirect-307-relative":
                fixed(out, "307 Temporary Redirect", "text/plain", "moved", "Location: /gateway/v1/chat/completions\r\n");
                return true;
            default:
                fixed(out, "400 Bad Request", "text/plain", "unknown scenario: " + scenario, "");
                return true;
        }
    }

    /** 200 KB of varied ASCII. */
    public static String bigContent() {
        StringBuilder s = new StringBuilder(BIG_CONTENT_CHARS);
        for (int i = 0; s.length() < BIG_CONTENT_CHARS; i++) s.append((char) ('a' + i % 26));
        return s.toString();
    }

    private static String sse(String data, String eol, boolean space) {
        return "data:" + (space ? " " : "") + data + eol + eol;
    }

    /** An HTTP/1.0-style stream: no length, no chunking, {@code body}, then the close ends it; false. */
    private static boolean untilClose(OutputStream out, String body) throws IOException {
        head(out, "200 OK", "text/event-stream", "Connection: close\r\n");
        out.write(body.getBytes(StandardCharsets.UTF_8));
        out.flush();
        return false;
    }

    /**
     * {@code events}, each flushed, then 0.5 s later the body's end, stamped "end": the chunked terminator (keep-alive)
     * when {@code chunked}, else the close of a body with no length and no chunking.
     */
    private boolean lateEnd(OutputStream out, boolean chunked, String... events)
            throws IOException, InterruptedException {
        if (chunked) {
            sseHead(out);
        } else {
            head(out, "200 OK", "text/event-stream", "Connection: close\r\n");
        }
        for (String e : events) {
            if (chunked) {
                chunk(out, sse(e, "\n", true));
            } else {
                out.write(sse(e, "\n", true).getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        }
        Thread.sleep(500);
        if (chunked) return endStamped(out);
        stamps.put("end", System.nanoTime());
        return false; // the caller closes the socket: the body's end
    }

    private static void sseHead(OutputStream out) throws IOException {
        head(out, "200 OK", "text/event-stream", "Transfer-Encoding: chunked\r\n");
    }

    private static void head(OutputStream out, String status, String contentType, String extra) throws IOException {
        String head = "HTTP/1.1 " + status + "\r\nContent-Type: " + contentType + "\r\n" + extra + "\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static void fixed(OutputStream out, String status, String contentType, String body, String extra)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        head(out, status, contentType, "Content-Length: " + bytes.length + "\r\n" + extra);
        out.write(bytes);
        out.flush();
    }

    /**
     * Waits up to {@code millis} for the client to close the connection; stamps "client-closed" when it did. A
     * client that waits for the body's end instead lets the wait run out.
     */
    private boolean closedByClientWithin(Socket socket, InputStream in, int millis) throws IOException {
        socket.setSoTimeout(millis);
        try {
            if (in.read() == -1) {
                stamps.put("client-closed", System.nanoTime());
                return true;
            }
            return false;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException e) { // a reset is a close too
            stamps.put("client-closed", System.nanoTime());
            return true;
        } finally {
            if (!socket.isClosed()) socket.setSoTimeout(0);
        }
    }

    /**
     * Waits for the test's word that the record has ended ({@link #signalLateEnd}) before a late body end: a fixed
     * 0.5 s pause was outrun by a starved I/O thread that read the end event after it. A client that waits for the
     * body's end gets it 20 s on, past its idle timeout.
     */
    private void awaitLateEnd() throws InterruptedException {
        lateEnds.tryAcquire(20, TimeUnit.SECONDS);
    }

    /** Writes the chunked terminator, stamped "end"; true. */
    private boolean endStamped(OutputStream out) throws IOException {
        stamps.put("end", System.nanoTime());
        end(out);
        return true;
    }

    /** Whether the stamp {@code name} was taken (no wait). */
    public boolean hasStamp(String name) {
        return stamps.containsKey(name);
    }

    /** The standard stream, one chunk per event, [DONE]'s write stamped "done"; no terminator. */
    private void writeUntilDone(OutputStream out) throws IOException {
        for (String e : Streams.standard()) {
            if (e.equals("[DONE]")) stamps.put("done", System.nanoTime());
            chunk(out, sse(e, "\n", true));
        }
    }

    private static void chunk(OutputStream out, String text) throws IOException {
        chunkBytes(out, text.getBytes(StandardCharsets.UTF_8));
    }

    private static void chunkBytes(OutputStream out, byte[] bytes) throws IOException {
        if (bytes.length == 0) return; // a zero-length chunk would end the body
        out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static void end(OutputStream out) throws IOException {
        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private static void drainUntilClosed(InputStream in) throws IOException {
        while (in.read() != -1) {
            // wait for the client to close (cancel, idle timeout) or the server to shut down
        }
    }

    private Received readRequest(InputStream in, int connection) throws IOException {
        String requestLine = readLine(in);
        if (requestLine == null) return null;
        String[] parts = requestLine.split(" ");
        Map<String, String> headers = new LinkedHashMap<>();
        String line;
        while ((line = readLine(in)) != null && !line.isEmpty()) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        String prompt;
        try {
            JsonNode messages = JSON.readTree(body).path("messages"); // the last is the user's (Anthropic: the only)
            prompt = messages.path(messages.size() - 1).path("content").asText("");
        } catch (IOException e) {
            prompt = "";
        }
        return new Received(parts[0], parts.length > 1 ? parts[1] : "", headers, body, prompt, connection);
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int len = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, len, StandardCharsets.US_ASCII);
            }
            line.write(b);
        }
        return line.size() == 0 ? null : line.toString(StandardCharsets.US_ASCII);
    }

    /** Scenario names, for tests that loop over them. */
    public static List<String> scenarios() {
        return new ArrayList<>(List.of("ok", "ok-one-write", "ok-crlf", "ok-cr", "ok-bytewise", "until-close",
                "status-401", "status-429", "status-500", "json-error", "stream-error", "stream-error-string-code",
                "drop", "reset", "read-then-reset", "malformed", "no-done", "no-done-no-finish", "big"));
    }
}
