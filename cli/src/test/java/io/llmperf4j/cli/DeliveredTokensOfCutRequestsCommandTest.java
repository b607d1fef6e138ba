package io.llmperf4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The summary's {@code output_tokens_delivered} counts the tokens a request received before it broke off mid-stream
 * or was cut by the run's --timeout in the server's unit, as the iterations do: the server's tokens per content event
 * over the successful requests with usage. The server here writes one token per event, the word "tok", which the
 * default tokenizer (llama-2) counts as 2; the cut and broken requests carry no usage. With --tokenizer server they
 * counted 0 (the client never counts), with llama-2 twice the server's tokens.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DeliveredTokensOfCutRequestsCommandTest {

    private static final String BASE = "m_40_16";
    private static final int TOKENS = 16;
    /**
     * The 9 answers (7 of 16 events, 2 broken off after 5) must end inside --timeout 2 on 2 slots: at 5 ms a gap they
     * take ~0.3 s, leaving ~1.7 s for a busy machine's late wake-ups (at 20 ms they took ~1.3 s, and under load an
     * answer was cut mid-stream: neither 5 events nor one of the server's answers). The run lasts its 2 s either way.
     */
    private static final long GAP_MS = 5;
    /** Every fourth request the server breaks off after this many tokens; from the 10th on it stalls after them. */
    private static final int CUT_AFTER = 5;
    private static final int LAST_ANSWERED = 9;

    private HttpServer server;
    private ExecutorService pool;
    private final AtomicInteger requests = new AtomicInteger();
    /** The tokens the server wrote, one entry per request. */
    private final ConcurrentLinkedQueue<Integer> written = new ConcurrentLinkedQueue<>();
    private volatile boolean stopping;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        pool = Executors.newCachedThreadPool();
        server.setExecutor(pool);
        server.createContext("/v1/chat/completions", this::stream);
        server.start();
    }

    @AfterEach
    void stop() {
        stopping = true;
        server.stop(0);
        pool.shutdownNow();
    }

    /** 16 tokens one an event GAP_MS apart, then usage; every 4th request broken off, from the 10th on stalled. */
    private void stream(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            in.readAllBytes();
        }
        int number = requests.incrementAndGet();
        boolean stalls = number > LAST_ANSWERED;
        boolean broken = !stalls && number % 4 == 0;
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        int sent = 0;
        try {
            for (; sent < TOKENS; sent++) {
                if ((broken || stalls) && sent == CUT_AFTER) break;
                String delta = sent == 0 ? "{\"role\":\"assistant\",\"content\":\"tok\"}" : "{\"content\":\" tok\"}";
                write(out, "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
                        + delta + ",\"finish_reason\":null}]}");
                Thread.sleep(GAP_MS);
            }
            written.add(sent);
            if (broken) {
                exchange.close(); // the response ends without its last chunk: a stream broken off
                return;
            }
            while (stalls && !stopping) Thread.sleep(GAP_MS); // until the run's timeout cancels it
            write(out, "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},"
                    + "\"finish_reason\":\"length\"}]}");
            write(out, "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":"
                    + "{\"prompt_tokens\":8,\"completion_tokens\":" + TOKENS + ",\"total_tokens\":" + (TOKENS + 8)
                    + "}}");
            out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
            out.close();
        } catch (IOException | InterruptedException gone) {
            exchange.close();
        }
    }

    private static void write(OutputStream out, String json) throws IOException {
        out.write(("data: " + json + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    @Test
    void withTokenizerServerTheCutAndBrokenRequestsCountTheServersTokens(@TempDir Path dir) throws IOException {
        assertDeliveredEqualsTheServersTokens(dir, "--tokenizer", "server");
    }

    @Test
    void withLlama2WhichCountsTokAsTwoTheCutAndBrokenRequestsCountTheServersTokens(@TempDir Path dir)
            throws IOException {
        assertDeliveredEqualsTheServersTokens(dir);
    }

    private void assertDeliveredEqualsTheServersTokens(Path dir, String... tokenizer) throws IOException {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "16", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "100", "--num-concurrent-requests", "2", "--timeout", "2",
                "--no-client-warmup", "--results-dir", dir.toString()));
        args.addAll(List.of(tokenizer));
        CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", "http://127.0.0.1:" + server.getAddress().getPort() + "/v1",
                "OPENAI_API_KEY", "k"), args.toArray(String[]::new));
        assertEquals(0, run.exitCode(), run::toString);

        ObjectMapper json = new ObjectMapper();
        long received = 0;
        long receivedByFailed = 0;
        int cancelled = 0;
        int broken = 0;
        List<Integer> perRequest = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("requests.jsonl"))) {
            JsonNode r = json.readTree(line);
            int events = r.get("content_event_nanos").size();
            perRequest.add(events);
            received += events; // one server token each
            if (!r.get("failure").isNull()) {
                receivedByFailed += events;
                if (r.get("failure").get("kind").asText().equals("CANCELLED")) cancelled++;
                else broken++;
                assertEquals(CUT_AFTER, events, line);
                assertTrue(r.get("usage_completion_tokens").isNull(), line);
            }
        }
        assertTrue(cancelled > 0 && broken > 0, "a request cut by the timeout and one broken off mid-stream: "
                + cancelled + " cancelled, " + broken + " broken");
        // the client received what the server wrote: each recorded request's events are one of the server's answers
        List<Integer> serverAnswers = new ArrayList<>(written);
        for (Integer events : perRequest) assertTrue(serverAnswers.remove(events), "not written: " + events);

        JsonNode t = json.readTree(dir.resolve(BASE + "_llmperf4j_summary.json").toFile()).get("throughput");
        assertEquals(received - receivedByFailed, t.get("total_output_tokens").asLong(), "llmperf's, unchanged");
        assertEquals(received, t.get("output_tokens_delivered").asDouble(), 1e-9, t::toString);
        assertEquals(receivedByFailed, t.get("output_tokens_delivered_by_failed").asDouble(), 1e-9, t::toString);
    }
}
