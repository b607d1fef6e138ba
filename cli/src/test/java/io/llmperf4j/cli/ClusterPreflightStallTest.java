package io.llmperf4j.cli;

import com.hazelcast.core.HazelcastInstance;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.distributed.ClusterNode;
import io.llmperf4j.distributed.ClusterSettings;
import io.llmperf4j.distributed.HostPort;
import io.llmperf4j.distributed.LoadWorker;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cluster run's pre-run check that a worker gave up on says what came, in the single-machine check's words: a
 * coordinator ({@code token-benchmark --cluster}) and one load worker in this JVM against a server on 127.0.0.1 whose
 * first request (the worker's check) gets 200, the role chunk and 2 content events, then nothing; the run's requests
 * are answered. It read "no answer from URL (worker ...) in 2 s ... check its logs and that the model is loaded".
 */
class ClusterPreflightStallTest {

    @Test
    @Timeout(120)
    void aWorkersStalledCheckSaysWhatCame(@TempDir Path dir) throws Exception {
        CountDownLatch over = new CountDownLatch(1);
        AtomicInteger posts = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        ExecutorService threads = Executors.newFixedThreadPool(4);
        server.setExecutor(threads);
        server.createContext("/v1/chat/completions", exchange -> answer(exchange, posts.getAndIncrement() == 0,
                over));
        server.start();
        String cluster = "test-" + UUID.randomUUID();
        HostPort member = new HostPort("127.0.0.1", LoopbackPorts.next());
        HazelcastInstance worker = ClusterNode.start(new ClusterSettings(cluster, List.of(member), member),
                ClusterNode.WORKER, Map.of(LoadWorker.CONTEXT_KEY, new LoadWorker(api -> "k", line -> { })));
        try {
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", base + "/v1", "OPENAI_API_KEY", "k"),
                    "token-benchmark", "--model", "m", "--mean-input-tokens", "40", "--stddev-input-tokens", "0",
                    "--mean-output-tokens", "2", "--stddev-output-tokens", "0", "--max-num-completed-requests", "2",
                    "--num-concurrent-requests", "1", "--timeout", "2", "--no-client-warmup", "--no-server-metrics",
                    "--results-dir", dir.toString(), "--cluster", cluster, "--workers", "1", "--bind",
                    "127.0.0.1:" + LoopbackPorts.next(), "--worker-wait", "60", "--member", member.toString());
            String line = run.err().lines().filter(l -> l.startsWith("llmperf4j: pre-run check: ")).findFirst()
                    .orElse("");
            assertTrue(Pattern.compile(Pattern.quote("llmperf4j: pre-run check: " + base + "/v1/chat/completions "
                    + "(worker " + member + ") answered 200 and 2 content events, then nothing more for ")
                    + "\\d(\\.\\d)? s" + Pattern.quote("; the check gave up at 2 s (--timeout) and the run starts "
                    + "anyway (a slow server is the run's to measure). A stream that stops part-way is a stalled "
                    + "server, not a model still loading: check its logs (llmperf4j doctor checks step by step); for "
                    + "a slow answer, raise --timeout")).matcher(line).matches(), run::toString);
            assertFalse(run.err().contains("no answer"), run::toString);
            assertEquals(0, run.exitCode(), run::toString); // the run went ahead, its requests answered
        } finally {
            over.countDown();
            worker.shutdown();
            server.stop(0);
            threads.shutdownNow();
        }
    }

    /** 200, the role chunk and 2 tokens; then silence when {@code stall}, else the finish and [DONE]. */
    private static void answer(HttpExchange exchange, boolean stall, CountDownLatch over) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            SseEvents.write(out, SseEvents.chatChunk("{\"role\":\"assistant\",\"content\":\"\"}", null));
            SseEvents.write(out, SseEvents.chatChunk("{\"content\":\"Hello\"}", null));
            SseEvents.write(out, SseEvents.chatChunk("{\"content\":\" there\"}", null));
            if (stall) {
                over.await(60, TimeUnit.SECONDS); // silent until the test is over
                return;
            }
            SseEvents.write(out, SseEvents.chatChunk("{}", "\"length\""));
            SseEvents.write(out, "[DONE]");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the client closed the connection (the check's cancel)
        }
    }

}
