package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.PartialAnswer;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker's pre-run check that the server answered and then left hanging carries what came back to the coordinator
 * ({@link RequestCheck#partialAnswer()}): a coordinator and one worker in this JVM against a server on 127.0.0.1 that
 * sends 200, the role chunk and 2 content events, then nothing. It crossed as "not answered" alone, and the worker
 * logged "no answer from URL in 1000 ms".
 */
class RequestCheckStallTest {

    @Test
    @Timeout(60)
    void aWorkerGivingUpOnAStalledStreamSaysWhatCame() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        RequestCheck check = check(60_000, Duration.ofSeconds(1), log);
        assertFalse(check.answered(), check::toString);
        assertNull(check.failure(), check::toString);
        PartialAnswer answer = check.partialAnswer();
        assertTrue(answer != null && answer.headers(), check::toString);
        assertEquals(3, answer.events(), check::toString); // the role chunk and 2 contents
        assertEquals(2, answer.contentEvents(), check::toString);
        assertTrue(answer.quietNanos() > 0, check::toString);
        assertTrue(log.stream().anyMatch(l -> l.matches("pre-run check: http://127\\.0\\.0\\.1:\\d+/v1/chat/"
                + "completions answered 200 and 2 content events, then nothing more for \\d(\\.\\d)? s; gave up "
                + "in 1000 ms")), log::toString);
    }

    /** The worker's client's own idle timeout ending the stalled stream carries what came too (answered, timed out). */
    @Test
    @Timeout(60)
    void aWorkersIdleTimeoutCarriesWhatCame() throws Exception {
        RequestCheck check = check(500, Duration.ofSeconds(20), new CopyOnWriteArrayList<>());
        assertTrue(check.answered(), check::toString);
        assertEquals(FailureKind.IDLE_TIMEOUT, check.failure().kind(), check::toString);
        assertEquals(2, check.partialAnswer().contentEvents(), check::toString);
    }

    /**
     * One worker's check of the stalling server, its client's idle timeout {@code idleMillis}, waiting {@code wait};
     * the worker's log lines go to {@code log}.
     */
    private static RequestCheck check(long idleMillis, Duration wait, List<String> log) throws Exception {
        CountDownLatch over = new CountDownLatch(1);
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        server.setExecutor(threads);
        server.createContext("/", exchange -> stall(exchange, over));
        server.start();
        String name = "test-" + UUID.randomUUID();
        HostPort c = new HostPort("127.0.0.1", LoopbackPorts.next());
        // the coordinator names only itself, the worker names it: a first member naming one not up yet tries it ~2 s
        List<HostPort> all = List.of(c, new HostPort("127.0.0.1", LoopbackPorts.next()));
        Coordinator coordinator = Coordinator.start(new ClusterSettings(name, List.of(c), c), line -> { });
        HazelcastInstance worker = null;
        try {
            worker = ClusterNode.start(new ClusterSettings(name, List.of(c), all.get(1)), ClusterNode.WORKER,
                    Map.of(LoadWorker.CONTEXT_KEY, new LoadWorker(api -> "k", log::add)));
            List<Member> members = coordinator.awaitWorkers(1, Duration.ofSeconds(60));
            URI endpoint = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/chat/completions");
            ClientSpec client = new ClientSpec(endpoint, "openai", true, "m", Map.of(), true, 1, idleMillis, null,
                    10_000, Map.of(), false, null, null);
            return coordinator.checkRequests(members, client, "Say hello.", wait, Duration.ofSeconds(20),
                    late -> { }).values().iterator().next();
        } finally {
            over.countDown();
            if (worker != null) worker.shutdown();
            coordinator.close();
            server.stop(0);
            threads.shutdownNow();
        }
    }

    /** The record crosses as JSON: a worker older than the field sends none, which reads as no partial answer. */
    @Test
    void anOlderWorkersAnswerReadsWithoutAPartialAnswer() {
        RequestCheck old = Wire.read("{\"key\":\"SET\",\"answered\":false,\"failure\":null}", RequestCheck.class);
        assertEquals(new RequestCheck(RequestCheck.KeyState.SET, false, null), old);
        RequestCheck check = new RequestCheck(RequestCheck.KeyState.SET, false, null,
                new PartialAnswer(true, 3, 2, 2_900_000_000L));
        assertEquals(check, Wire.read(Wire.write(check), RequestCheck.class));
    }

    private static void stall(HttpExchange exchange, CountDownLatch over) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            for (String delta : new String[] {"{\"role\":\"assistant\",\"content\":\"\"}", "{\"content\":\"Hello\"}",
                    "{\"content\":\" there\"}"}) {
                out.write(("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
                        + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":" + delta
                        + ",\"finish_reason\":null}]}\n\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            over.await(30, TimeUnit.SECONDS); // silent until the test is over
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the client closed the connection (the check's cancel)
        }
    }
}
