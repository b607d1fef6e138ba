package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.distributed.testing.LocalWorkers;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import io.llmperf4j.model.FailureKind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Coordinator#checkRequests}: a coordinator and two workers in this JVM, each worker with its own key, against
 * a server on 127.0.0.1 that refuses every request with a 401 quoting the Authorization header it got (as some
 * gateways do), so what crosses the cluster back can be checked for the key.
 */
class RequestCheckTest {
    private static final String KEY = "sk-worker-own-secret-0123456789";
    private static HttpServer server;
    private static final List<String> bodies = new CopyOnWriteArrayList<>();
    private static Coordinator coordinator;
    private static LocalWorkers workers;
    private static final List<AtomicReference<String>> keys = List.of(new AtomicReference<>(),
            new AtomicReference<>());
    private static List<Member> members;

    @BeforeAll
    static void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/", exchange -> {
            bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] body = ("{\"error\":{\"message\":\"Incorrect API key provided: "
                    + exchange.getRequestHeaders().getFirst("Authorization") + "\"}}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(401, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        String name = "test-" + UUID.randomUUID();
        HostPort c = new HostPort("127.0.0.1", LoopbackPorts.next());
        // the coordinator names only itself (its workers are not up yet) and the workers name it: LocalWorkers
        coordinator = Coordinator.start(new ClusterSettings(name, List.of(c), c), line -> { });
        workers = LocalWorkers.start(name, c, List.of(api -> keys.get(0).get(), api -> keys.get(1).get()));
        members = coordinator.awaitWorkers(2, Duration.ofSeconds(60));
    }

    @AfterAll
    static void stop() {
        if (coordinator != null) coordinator.close(); // first: no member has left, so it probes no address
        if (workers != null) workers.close();
        if (server != null) server.stop(0);
    }

    @Test
    @Timeout(60)
    void eachWorkerAnswersWithItsOwnKeysOutcomeAndNeverTheKey() {
        URI endpoint = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/chat/completions");
        ClientSpec client = new ClientSpec(endpoint, "openai", true, "m", Map.of("temperature", 0.5), true, 1,
                60_000, null, 10_000, Map.of(), false, null, null);
        keys.get(0).set(KEY);
        keys.get(1).set(null);
        int before = bodies.size();
        List<List<String>> late = new ArrayList<>();
        Map<String, RequestCheck> checks = coordinator.checkRequests(members, client, "Say hello.",
                Duration.ofSeconds(20), Duration.ofSeconds(20), late::add);

        assertEquals(List.of(ClusterNode.idOf(members.get(0)), ClusterNode.idOf(members.get(1))),
                List.copyOf(checks.keySet()));
        assertEquals(List.of(), late, "the notice comes only before the wait's end");
        RequestCheck withKey = checks.values().stream().filter(ch -> ch.key() == RequestCheck.KeyState.SET)
                .findFirst().orElseThrow();
        assertTrue(withKey.answered(), withKey::toString);
        assertEquals(FailureKind.HTTP_STATUS, withKey.failure().kind(), withKey::toString);
        assertEquals(401, withKey.failure().code());
        assertFalse(withKey.failure().message().contains(KEY), withKey::toString);
        assertTrue(withKey.failure().message().contains("Incorrect API key provided: Bearer [redacted]"),
                withKey::toString);
        RequestCheck unset = checks.values().stream().filter(ch -> ch.key() != RequestCheck.KeyState.SET)
                .findFirst().orElseThrow();
        assertEquals(new RequestCheck(RequestCheck.KeyState.UNSET, false, null), unset);
        // one request reached the server, the run's params with one output token
        assertEquals(1, bodies.size() - before, bodies::toString);
        String body = bodies.get(before);
        assertTrue(body.contains("\"temperature\":0.5") && body.contains("Say hello."), body);
        assertTrue(body.matches(".*\"max_(completion_)?tokens\":1[,}].*"), body);

        keys.get(1).set(" ");
        checks = coordinator.checkRequests(members, client, "Say hello.", Duration.ofSeconds(20),
                Duration.ofSeconds(20), late::add);
        assertEquals(1, checks.values().stream().filter(ch -> ch.key() == RequestCheck.KeyState.EMPTY).count(),
                checks::toString);
        assertNull(checks.values().stream().filter(ch -> ch.key() == RequestCheck.KeyState.EMPTY).findFirst()
                .orElseThrow().failure());
    }
}
