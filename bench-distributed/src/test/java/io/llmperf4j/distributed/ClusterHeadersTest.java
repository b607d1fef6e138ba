package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the coordinator's {@code --header}, {@code --ca-cert} and {@code --insecure} become on the workers: a
 * coordinator and two workers in this JVM (each with its own API key) against an https server on 127.0.0.1 with a
 * throw-away certificate that records every request's headers. A header value (a gateway's token) crosses the
 * cluster, as it must for the workers to send it, but is never printed: not by the members' logs, not by Hazelcast's
 * (this JVM's stdout and stderr), not by the job's description. Nor is a key in the endpoint's query string (some
 * gateways take {@code ?api-key=}).
 */
class ClusterHeadersTest {
    private static final char[] PASSWORD = "changeit".toCharArray();
    private static final String GATEWAY_TOKEN = "gw-token-SECRET-4711-abcdef";
    private static final List<String> WORKER_KEYS = List.of("worker-0-key-SECRET-1111", "worker-1-key-SECRET-2222");
    private static final String QUERY_KEY = "query-key-SECRET-9876";

    @TempDir
    static Path dir;
    private static HttpsServer server;
    private static String pem;
    private static final List<Map<String, String>> requests = new CopyOnWriteArrayList<>();
    private static final List<String> targets = new CopyOnWriteArrayList<>();
    private static final List<String> logLines = new CopyOnWriteArrayList<>();
    private static Coordinator coordinator;
    private static final List<HazelcastInstance> workers = new ArrayList<>();
    private static List<Member> members;
    private static final ByteArrayOutputStream console = new ByteArrayOutputStream();
    private static PrintStream out;
    private static PrintStream err;

    @BeforeAll
    static void start() throws Exception {
        out = System.out;
        err = System.err;
        System.setOut(new PrintStream(new Tee(out), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new Tee(err), true, StandardCharsets.UTF_8));
        Path store = certificate();
        pem = Files.readString(dir.resolve("server.pem"));
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.setHttpsConfigurator(new HttpsConfigurator(serverContext(store)));
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            targets.add(exchange.getRequestURI().toString());
            requests.add(Map.of("x-gateway-token", header(exchange, "X-Gateway-Token"),
                    "x-team", header(exchange, "X-Team"), "authorization", header(exchange, "Authorization")));
            byte[] body = stream().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream o = exchange.getResponseBody()) {
                o.write(body);
            }
        });
        // a thread per exchange: with the default (the dispatcher's own thread), a preconnected connection's TLS
        // handshake waits for its first request there, and blocks every other connection's until it comes
        server.setExecutor(Executors.newCachedThreadPool(task -> {
            Thread t = new Thread(task, "https-test-server");
            t.setDaemon(true);
            return t;
        }));
        server.start();
        String name = "test-" + UUID.randomUUID();
        HostPort c = new HostPort("127.0.0.1", LoopbackPorts.next());
        List<HostPort> all = new ArrayList<>(List.of(c));
        for (int i = 0; i < 2; i++) all.add(new HostPort("127.0.0.1", LoopbackPorts.next()));
        coordinator = Coordinator.start(new ClusterSettings(name, all, c), logLines::add);
        for (int i = 0; i < 2; i++) {
            String key = WORKER_KEYS.get(i);
            workers.add(ClusterNode.start(new ClusterSettings(name, all, all.get(i + 1)), ClusterNode.WORKER,
                    Map.of(LoadWorker.CONTEXT_KEY, new LoadWorker(api -> key, logLines::add))));
        }
        members = coordinator.awaitWorkers(2, Duration.ofSeconds(60));
    }

    @AfterAll
    static void stop() {
        try {
            for (HazelcastInstance w : workers) w.shutdown();
            if (coordinator != null) coordinator.close();
            if (server != null) server.stop(0);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    private static ClientSpec client(boolean insecure, String caPem) {
        return client(URI.create("https://127.0.0.1:" + server.getAddress().getPort() + "/v1/chat/completions"),
                insecure, caPem);
    }

    private static ClientSpec client(URI endpoint, boolean insecure, String caPem) {
        return new ClientSpec(endpoint, "openai", true, "m", Map.of(), true, 2, 60_000, null, 10_000,
                Map.of("X-Gateway-Token", GATEWAY_TOKEN, "X-Team", "bench"), insecure, caPem,
                null);
    }

    private static List<RequestSpec> specs(int n) {
        List<RequestSpec> specs = new ArrayList<>();
        for (int i = 0; i < n; i++) specs.add(new RequestSpec(i, "prompt " + i, 5, 4));
        return specs;
    }

    @Test
    @Timeout(60)
    void theCoordinatorsHeadersAndCaCertificatesReachEveryWorkersRequestsWithItsOwnKey() {
        ClientSpec client = client(false, pem); // --ca-cert
        int before = requests.size();
        Map<String, RequestCheck> checks = coordinator.checkRequests(members, client, "Say hello.",
                Duration.ofSeconds(20), Duration.ofSeconds(20), late -> { });
        for (RequestCheck check : checks.values()) {
            assertTrue(check.answered(), check::toString);
            assertNull(check.failure(), check::toString);
        }
        MergedRun run = coordinator.run(DistributedPlan.closedLoop(client, specs(4), 2, Duration.ofSeconds(30)),
                members, Map.of(), text -> 1);

        assertEquals(4, run.records().size());
        assertTrue(run.records().stream().allMatch(RequestRecord::succeeded), run.records()::toString);
        assertEquals(2, run.records().stream().map(RequestRecord::workerId).distinct().count());
        List<Map<String, String>> sent = requests.subList(before, requests.size());
        assertEquals(2 + 4, sent.size(), "each worker's pre-run check, then the run's requests");
        for (Map<String, String> headers : sent) {
            assertEquals(GATEWAY_TOKEN, headers.get("x-gateway-token"), headers::toString);
            assertEquals("bench", headers.get("x-team"), headers::toString);
        }
        assertEquals(Set.of("Bearer " + WORKER_KEYS.get(0), "Bearer " + WORKER_KEYS.get(1)),
                sent.stream().map(h -> h.get("authorization")).collect(Collectors.toSet()),
                "each worker its own key; the coordinator's never travels");
        assertNothingShowsASecret(client);
    }

    @Test
    @Timeout(60)
    void insecureReachesTheWorkersAndWithoutEitherTheCertificateIsRefused() {
        MergedRun insecure = coordinator.run(DistributedPlan.closedLoop(client(true, null), specs(4), 2,
                Duration.ofSeconds(30)), members, Map.of(), text -> 1);
        assertTrue(insecure.records().stream().allMatch(RequestRecord::succeeded), insecure.records()::toString);
        assertEquals(2, insecure.records().stream().map(RequestRecord::workerId).distinct().count());

        MergedRun untrusted = coordinator.run(DistributedPlan.closedLoop(client(false, null), specs(2), 2,
                Duration.ofSeconds(30)), members, Map.of(), text -> 1);
        for (RequestRecord r : untrusted.records()) {
            assertEquals(FailureKind.CONNECT_FAILED, r.failure().kind(), r::toString);
            assertTrue(r.failure().message().startsWith("TLS handshake failed: "), r.failure().message());
        }
        assertNothingShowsASecret(client(true, null));
    }

    /**
     * A key in the endpoint's query reaches the server, but the lines the workers and the coordinator print (a
     * share's start, the pre-run check's, a worker that cannot reach the endpoint) and a job's description show the
     * URL with that value replaced.
     */
    @Test
    @Timeout(60)
    void aKeyInTheEndpointsQueryIsInNoLine() {
        String query = "?api-version=2024-06-01&api-key=" + QUERY_KEY;
        ClientSpec client = client(URI.create("https://127.0.0.1:" + server.getAddress().getPort()
                + "/v1/chat/completions" + query), true, null);
        int before = requests.size();
        coordinator.checkReachable(members, client.endpoint());
        Map<String, RequestCheck> checks = coordinator.checkRequests(members, client, "Say hello.",
                Duration.ofSeconds(20), Duration.ofSeconds(20), late -> { });
        assertTrue(checks.values().stream().allMatch(c -> c.answered() && c.failure() == null), checks::toString);
        MergedRun run = coordinator.run(DistributedPlan.closedLoop(client, specs(4), 2, Duration.ofSeconds(30)),
                members, Map.of(), text -> 1);
        assertTrue(run.records().stream().allMatch(RequestRecord::succeeded), run.records()::toString);
        assertTrue(targets.subList(before, targets.size()).stream().allMatch(t -> t.endsWith(query)),
                "the key reached the server: " + targets);
        DistributedRunException unreachable = assertThrows(DistributedRunException.class, () -> coordinator
                .checkReachable(members, URI.create("http://127.0.0.1:" + LoopbackPorts.next()
                        + "/v1/chat/completions" + query)));
        logLines.add(unreachable.getMessage()); // the coordinator's console prints it

        String shownUrl = "/v1/chat/completions?api-version=2024-06-01&api-key=[REDACTED]";
        assertTrue(logLines.stream().anyMatch(l -> l.startsWith("share of run ") && l.endsWith(shownUrl)),
                logLines::toString);
        assertTrue(logLines.stream().anyMatch(l -> l.startsWith("pre-run check of model m against ")
                && l.endsWith(shownUrl + ": ok")), logLines::toString);
        assertTrue(unreachable.getMessage().contains(shownUrl + " (check OPENAI_API_BASE"), unreachable::getMessage);
        assertNothingShowsASecret(client);
    }

    /** The members' log lines, this JVM's stdout and stderr (Hazelcast's logs) and the job's description. */
    private static void assertNothingShowsASecret(ClientSpec client) {
        WorkerJob job = new WorkerJob("job", "w", UUID.randomUUID(), client, LoadShare.closed(1, 1,
                Duration.ofSeconds(1), Warmup.NONE), specs(1), null);
        String shown = String.join("\n", logLines) + "\n" + console.toString(StandardCharsets.UTF_8) + "\n" + job;
        assertTrue(job.toString().contains("extraHeaders=[X-Gateway-Token, X-Team]")
                || job.toString().contains("extraHeaders=[X-Team, X-Gateway-Token]"), job::toString); // Map.of's order
        for (String secret : List.of(GATEWAY_TOKEN, WORKER_KEYS.get(0), WORKER_KEYS.get(1), QUERY_KEY)) {
            assertFalse(shown.contains(secret), () -> secret + " shown in:\n" + shown);
        }
        if (client.trustedCertificatesPem() != null) {
            assertFalse(job.toString().contains("BEGIN CERTIFICATE"), job::toString);
        }
    }

    private static String header(HttpExchange exchange, String name) {
        String value = exchange.getRequestHeaders().getFirst(name);
        return value == null ? "" : value;
    }

    private static String stream() {
        return "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":null}]}"
                + "\n\ndata: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
                + "data: [DONE]\n\n";
    }

    /** Copies what this JVM prints to the console, to be searched. */
    private static final class Tee extends OutputStream {
        private final OutputStream original;

        Tee(OutputStream original) {
            this.original = original;
        }

        @Override
        public void write(int b) {
            synchronized (console) {
                console.write(b);
            }
            try {
                original.write(b);
            } catch (IOException e) {
                // the copy is what matters here
            }
        }

        @Override
        public void write(byte[] b, int off, int len) {
            synchronized (console) {
                console.write(b, off, len);
            }
            try {
                original.write(b, off, len);
            } catch (IOException e) {
                // the copy is what matters here
            }
        }
    }

    /** A key store and PEM for 127.0.0.1, made by keytool in the temp folder. */
    private static Path certificate() throws Exception {
        Path store = dir.resolve("server.p12");
        keytool("-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-keystore", store.toString(),
                "-storetype", "PKCS12", "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD));
        keytool("-exportcert", "-rfc", "-alias", "server", "-file", dir.resolve("server.pem").toString(),
                "-keystore", store.toString(), "-storepass", new String(PASSWORD));
        return store;
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("keytool failed: " + output);
        }
    }

    private static SSLContext serverContext(Path store) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, PASSWORD);
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, PASSWORD);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        return ctx;
    }
}
