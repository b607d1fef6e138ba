package io.llmperf4j.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.server.FaultKind;
import io.llmperf4j.server.FaultPlan;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A new user's endpoint mistakes, each against a real server on 127.0.0.1, named for what they are: http:// to a TLS
 * port (and a server that resets every connection), https:// to a plain-HTTP port, a web server's HTML error page, a
 * server that answers a streamed request with JSON, a base ending in /completions, and a rate limit that fails some
 * requests of a run.
 */
class EndpointMistakesTest {
    @TempDir
    static Path dir;
    /** A TLS port: its handshake fails on a plain-HTTP request, and it closes the connection unanswered. */
    private static SSLServerSocket tls;
    /** Reads a request, then resets the connection. */
    private static ServerSocket resetting;
    /** A plain-HTTP port that answers bytes it cannot parse (a TLS hello) with 400, as uvicorn does. */
    private static ServerSocket badRequest;
    /**
     * A plain-HTTP port whose first two requests are closed unanswered, then answered with 400: the JDK client's words
     * when it sees a plain-text answer's close before its bytes ("received no bytes"), made to happen every time.
     */
    private static ServerSocket closesFirstRequest;
    /** A plain-HTTP web server that is no LLM API: HTML error pages, as python3 -m http.server sends them. */
    private static HttpServer web;
    private static final List<Socket> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** python3 -m http.server's answer to a POST. */
    private static final String PYTHON_501 = """
            <!DOCTYPE HTML>
            <html lang="en">
                <head>
                    <meta charset="utf-8">
                    <title>Error response</title>
                </head>
                <body>
                    <h1>Error response</h1>
                    <p>Error code: 501</p>
                    <p>Message: Unsupported method (&#x27;POST&#x27;).</p>
                    <p>Error code explanation: 501 - Server does not support this operation.</p>
                </body>
            </html>
            """;

    @BeforeAll
    static void startServers() throws Exception {
        tls = (SSLServerSocket) LocalhostCertificate.serverContext().getServerSocketFactory().createServerSocket(0, 50,
                InetAddress.getLoopbackAddress());
        serve(tls, socket -> {
            try {
                ((SSLSocket) socket).startHandshake();
            } catch (IOException notTls) {
                // a plain-HTTP request: the handshake fails and the connection closes unanswered
            }
            socket.close();
        });
        resetting = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        serve(resetting, socket -> {
            socket.getInputStream().read(new byte[8192]);
            socket.setSoLinger(true, 0); // RST instead of FIN
            socket.close();
        });
        badRequest = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        serve(badRequest, socket -> {
            socket.getInputStream().read(new byte[8192]);
            socket.getOutputStream().write("HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\n"
                    .concat("Connection: close\r\ncontent-length: 11\r\n\r\nInvalid HTTP").getBytes(
                            StandardCharsets.US_ASCII));
            socket.close();
        });
        java.util.concurrent.atomic.AtomicInteger requestsSeen = new java.util.concurrent.atomic.AtomicInteger();
        closesFirstRequest = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        serve(closesFirstRequest, socket -> {
            int read = socket.getInputStream().read(new byte[8192]);
            // the reachability check sends nothing; the first two requests are the doctor's GET and the JDK
            // client's one retry of it
            if (read > 0 && requestsSeen.incrementAndGet() <= 2) {
                socket.close();
                return;
            }
            socket.getOutputStream().write(("HTTP/1.1 400 Bad Request\r\nConnection: close\r\ncontent-length: 11"
                    + "\r\n\r\nInvalid HTTP").getBytes(StandardCharsets.US_ASCII));
            socket.close();
        });
        web = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        web.createContext("/html/", exchange -> answer(exchange, 501, "text/html;charset=utf-8", PYTHON_501));
        web.createContext("/json/v1/chat/completions", exchange -> answer(exchange, 200, "application/json",
                "{\"id\":\"c\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
                        + "\"assistant\",\"content\":\"Hello\"},\"finish_reason\":\"length\"}]}"));
        web.createContext("/plain/", exchange -> answer(exchange, 404, "application/json",
                "{\"detail\":\"Not Found\"}"));
        web.start();
    }

    @AfterAll
    static void stopServers() throws IOException {
        tls.close();
        resetting.close();
        badRequest.close();
        closesFirstRequest.close();
        web.stop(0);
        for (Socket socket : accepted) socket.close();
    }

    private interface Connection {
        void handle(Socket socket) throws IOException;
    }

    private static void serve(ServerSocket server, Connection connection) {
        Thread acceptor = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    accepted.add(socket);
                    Thread handler = new Thread(() -> {
                        try {
                            connection.handle(socket);
                        } catch (IOException ignored) {
                            // the client went away
                        }
                    });
                    handler.setDaemon(true);
                    handler.start();
                } catch (IOException closed) {
                    return;
                }
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private static void answer(HttpExchange exchange, int status, String type, String body) throws IOException {
        exchange.getRequestBody().readAllBytes();
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static CliRun tokenBenchmark(String base, Path results, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m",
                "--max-num-completed-requests", "4", "--num-concurrent-requests", "2", "--mean-output-tokens", "5",
                "--stddev-output-tokens", "0", "--no-server-metrics", "--no-client-warmup", "--results-dir",
                results.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(Map.of("OPENAI_API_BASE", base, "OPENAI_API_KEY", "sk-test"), args.toArray(String[]::new));
    }

    private static CliRun doctor(String base) {
        return CliRun.of(Map.of("OPENAI_API_BASE", base, "OPENAI_API_KEY", "sk-test"), "doctor", "--model", "m");
    }

    @Test
    void plainHttpToATlsPortStopsAtThePreRunCheckWithTheHttpsHint() {
        // the JDK's TLS server answers a plain request with a TLS alert
        Path results = dir.resolve("tls-port");
        String where = "127.0.0.1:" + tls.getLocalPort();
        CliRun run = tokenBenchmark("http://" + where + "/v1", results);
        run.assertOneErrorLine(ExitCodes.FAILURE, "the server at " + where + " answered in TLS, not plain HTTP: use "
                + "https:// instead of http:// in OPENAI_API_BASE");
        assertFalse(Files.exists(results), "no run, no results folder");

        CliRun doctor = doctor("http://" + where + "/v1");
        assertEquals(1, doctor.exitCode(), doctor::toString);
        assertTrue(doctor.out().contains("fix: the server answered in TLS, not plain HTTP; if that port serves TLS, "
                + "use https:// in OPENAI_API_BASE"), doctor::toString);
        assertTrue(doctor.out().contains("[WARN] TLS: not used (http), and the server answered in TLS, not plain "
                + "HTTP"), doctor::toString);
        assertFalse(doctor.out().contains("[PASS] TLS"), doctor::toString);
        assertFalse(doctor.out().contains("--ca-cert"), doctor::toString);
    }

    @Test
    void aServerThatResetsEveryConnectionStopsAtThePreRunCheckNamingTheReset() {
        // what OpenSSL's TLS servers (python's ssl) do to a plain request: QA's run went on, blaming keep-alive
        Path results = dir.resolve("resets");
        String where = "127.0.0.1:" + resetting.getLocalPort();
        CliRun run = tokenBenchmark("http://" + where + "/v1", results);
        run.assertOneErrorLine(ExitCodes.FAILURE, "the server closed the connection without answering the pre-run "
                + "request (" + where + ": Connection reset");
        assertTrue(run.err().contains("); if that port serves TLS, use https:// in OPENAI_API_BASE"), run::toString);
        assertFalse(run.err().contains("keep-alive"), run::toString);
        assertFalse(Files.exists(results), "no run, no results folder");

        CliRun doctor = doctor("http://" + where + "/v1");
        assertEquals(1, doctor.exitCode(), doctor::toString);
        assertTrue(doctor.out().contains("fix: the server closed the connection without answering; if that port "
                + "serves TLS, use https:// in OPENAI_API_BASE"), doctor::toString);
        assertTrue(doctor.out().contains("[WARN] TLS: not used (http), and the server closed the connection without "
                + "answering"), doctor::toString);
        assertFalse(doctor.out().contains("[PASS] TLS"), doctor::toString);
        assertFalse(doctor.out().contains("--ca-cert"), doctor::toString);
    }

    @Test
    void httpsToAPlainHttpPortSaysUseHttpWithoutHexOrCertificateAdvice() {
        String where = "127.0.0.1:" + badRequest.getLocalPort();
        CliRun run = tokenBenchmark("https://" + where + "/v1", dir.resolve("plain-port"));
        run.assertOneErrorLine(ExitCodes.FAILURE, "the server at " + where + " answered in plain HTTP, not TLS ('HTTP/1.1 "
                + "400 Bad Request'): use http:// instead of https:// in OPENAI_API_BASE");
        assertFalse(run.err().contains("--ca-cert") || run.err().contains("485454"), run::toString);

        CliRun doctor = doctor("https://" + where + "/v1");
        assertEquals(1, doctor.exitCode(), doctor::toString);
        assertTrue(doctor.out().contains("fix: the server answered in plain HTTP, not TLS: use http:// in "
                + "OPENAI_API_BASE"), doctor::toString);
        assertTrue(doctor.out().contains("[FAIL] TLS: the server answered in plain HTTP, not TLS"), doctor::toString);
        assertFalse(doctor.out().contains("--ca-cert"), doctor::toString);
    }

    @Test
    void httpsToAPlainHttpPortIsNamedWhenTheJdkClientSawOnlyTheClose() {
        CliRun doctor = doctor("https://127.0.0.1:" + closesFirstRequest.getLocalPort() + "/v1");
        assertEquals(1, doctor.exitCode(), doctor::toString);
        assertFalse(doctor.out().contains("plaintext connection"), doctor::toString); // the JDK client saw a close
        assertTrue(doctor.out().contains("fix: the server answered in plain HTTP, not TLS: use http:// in "
                + "OPENAI_API_BASE"), doctor::toString);
        assertTrue(doctor.out().contains("[FAIL] TLS: the server answered in plain HTTP, not TLS"), doctor::toString);
        assertFalse(doctor.out().contains("--ca-cert"), doctor::toString);
    }

    @Test
    void aWebServersHtmlErrorPageIsShortenedToItsWordsAndTheHintKept() {
        String base = "http://127.0.0.1:" + web.getAddress().getPort() + "/html/v1//"; // "//" is one "/"
        CliRun run = tokenBenchmark(base, dir.resolve("html"));
        run.assertOneErrorLine(ExitCodes.FAILURE, "with HTTP 501: Error response Error code: 501 Message: Unsupported "
                + "method ('POST'). Error code explanation: 501 - Server does not suppo...; the server at 127.0.0.1:"
                + web.getAddress().getPort() + " does not serve this API at http://127.0.0.1:"
                + web.getAddress().getPort() + "/html/v1/chat/completions: is OPENAI_API_BASE an LLM API's base URL");
        assertFalse(run.err().contains("<"), run::toString);
    }

    @Test
    void aServerIgnoringStreamIsToldAboutNoStream() {
        CliRun run = tokenBenchmark("http://127.0.0.1:" + web.getAddress().getPort() + "/json/v1",
                dir.resolve("json"));
        run.assertOneErrorLine(ExitCodes.FAILURE, "expected an event stream but got 'application/json' (is \"stream\" "
                + "overridden in the sampling params? a server that does not stream needs --no-stream)");
    }

    @Test
    void aBaseEndingInCompletionsIsToldTheBaseAndTheCompletionsApi() {
        String base = "http://127.0.0.1:" + web.getAddress().getPort() + "/plain/v1/completions";
        CliRun run = tokenBenchmark(base, dir.resolve("completions"));
        run.assertOneErrorLine(ExitCodes.FAILURE, "with HTTP 404: Not Found; the base URL ends in /completions, so the "
                + "request went to " + base + "/chat/completions: set OPENAI_API_BASE to the API base (ending in /v1), "
                + "and pass --llm-api openai-completions for the text completions API");
    }

    @Test
    void aRunWithSomeRequestsRateLimitedNamesTheStatusAndTheServersMessage(@TempDir Path results) {
        // arrival order: the pre-run request passes, then every second request of the run gets 429
        SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(1))
                .interTokenDelay(Duration.ZERO)
                .faultPlan(FaultPlan.sequence(FaultKind.NONE, FaultKind.HTTP_429)).build();
        try (SimulatedServer server = SimulatedServer.start(config)) {
            CliRun run = tokenBenchmark(server.baseUrl(), results);
            assertEquals(ExitCodes.OK, run.exitCode(), run::toString);
            assertTrue(run.toString().contains("[REQUESTS_FAILED] 2 of 4 requests failed (2 HTTP_STATUS: 2x 429 "
                    + "Simulated fault: rate limit reached, retry after 1 second [Retry-After: 1 s; not retried]): the "
                    + "server may not hold this "
                    + "load"), run::toString);
        }
    }
}
