package io.llmperf4j.engine.harness;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each window counts the server's tokens that arrived inside it, whatever became of their request: finished (with
 * usage), cut at the fork's end (no usage) or failed mid-stream (no usage). The server writes one token per event,
 * the word "tok", so the tokens a window received are the content events that arrived in it. The QA's last window
 * lost the cut requests' tokens with {@code --tokenizer server} (no client count: 0 each) and doubled them with
 * llama-2 (which counts "tok" as 2 tokens): 132 and 182.7 tok/s where the server wrote 158 and 162.7.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WindowTokensOfCutRequestsTest {

    private static final int TOKENS = 16;
    private static final long GAP_MS = 20;
    /** The first request's tokens: it streams past the fork's end, which cuts it in the last window. */
    private static final int LONG_TOKENS = 100;
    /** Every fourth request the server breaks off after this many tokens (a stream that failed mid-way). */
    private static final int BROKEN_AFTER = 5;
    private static final long MS = 1_000_000L;

    private HttpServer server;
    private ExecutorService pool;
    private final AtomicInteger requests = new AtomicInteger();

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
        server.stop(0);
        pool.shutdownNow();
    }

    /**
     * 16 tokens (the first request 100), one an event 20 ms apart, then usage; every fourth request broken off after
     * 5 tokens.
     */
    private void stream(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            in.readAllBytes();
        }
        int number = requests.incrementAndGet();
        boolean broken = number % 4 == 0;
        int tokens = number == 1 ? LONG_TOKENS : TOKENS;
        exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        try {
            for (int k = 0; k < tokens; k++) {
                if (broken && k == BROKEN_AFTER) {
                    exchange.close(); // the response ends without its last chunk: a stream broken off
                    return;
                }
                String delta = k == 0 ? "{\"role\":\"assistant\",\"content\":\"tok\"}" : "{\"content\":\" tok\"}";
                write(out, "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
                        + delta + ",\"finish_reason\":null}]}");
                Thread.sleep(GAP_MS);
            }
            write(out, "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},"
                    + "\"finish_reason\":\"length\"}]}");
            write(out, "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":"
                    + "{\"prompt_tokens\":2,\"completion_tokens\":" + tokens + ",\"total_tokens\":" + (tokens + 2)
                    + "}}");
            out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
            out.close();
        } catch (IOException | InterruptedException gone) {
            exchange.close(); // the client cancelled at the fork's end
        }
    }

    private static void write(OutputStream out, String json) throws IOException {
        out.write(("data: " + json + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    @Test
    void withoutAClientCountTheCutAndBrokenRequestsCountTheTokensTheyReceived() {
        // --tokenizer server: the client never counts output (the run's placeholder counter)
        assertEveryWindowCountsTheTokensThatArrivedInIt(text -> -1);
    }

    @Test
    void aClientTokenizerThatCountsTheServersWordAsTwoDoesNotDoubleTheCutRequests() {
        // llama-2 on this server's text: "tok" is 2 tokens, plus the BOS
        assertEveryWindowCountsTheTokensThatArrivedInIt(
                text -> 1 + 2 * (int) text.chars().filter(c -> c == 't').count());
    }

    private void assertEveryWindowCountsTheTokensThatArrivedInIt(TokenCounter counter) {
        java.net.URI url = EndpointUrls.chatCompletions((
                "http://127.0.0.1:" + server.getAddress().getPort() + "/v1"));
        HarnessRunner runner = new HarnessRunner(() -> new NettyLlmClient(ClientConfig.builder(url, "m")
                .maxConnections(8).build()), counter, OutputTokenPolicy.DEFAULT);
        List<RequestSpec> specs = List.of(new RequestSpec(0, "hello", 1, TOKENS));
        // 1 warmup + 2 measured windows of 0.5 s; the first request streams for 2 s, so the fork's end cuts it
        HarnessResult result = runner.run("cut", Map.of(), specs, new ClosedLoopSettings(4, Duration.ofMinutes(1)),
                HarnessSettings.of(1, Duration.ofMillis(500), 2, Duration.ofMillis(500), 1), null);

        ForkResult fork = result.forks().get(0);
        List<IterationResult> windows = new java.util.ArrayList<>(fork.warmup());
        windows.addAll(fork.measurement());
        double[] arrived = eventsPerWindow(fork.load().timeline(), windows);
        for (int k = 0; k < windows.size(); k++) {
            assertEquals(arrived[k], windows.get(k).outputTokens(), 1e-9, "window " + k);
        }
        // the case at stake took place: requests cut at the end and broken mid-stream delivered tokens counted here
        IterationResult last = fork.measurement().get(1);
        assertTrue(deliveredInside(fork.load().timeline(), last, FailureKind.CANCELLED) > 0,
                () -> "no request cut at the fork's end delivered a token in the last window: " + describe(fork));
        assertTrue(fork.load().timeline().stream().anyMatch(r -> !r.record().succeeded()
                        && r.record().failure().kind() != FailureKind.CANCELLED
                        && r.record().contentEventNanos().length == BROKEN_AFTER),
                "no stream broken off mid-way");
    }

    private static String describe(ForkResult fork) {
        StringBuilder b = new StringBuilder("end " + fork.load().endOffsetNanos() / MS + " ms;");
        for (ScheduledRecord r : fork.load().timeline()) {
            RequestRecord rec = r.record();
            b.append(' ').append(r.actualSendOffsetNanos() / MS).append('+').append(rec.e2eNanos() / MS)
                    .append(rec.succeeded() ? "" : ":" + rec.failure().kind()).append('/')
                    .append(rec.contentEventNanos().length);
        }
        return b.toString();
    }

    /** The content events (one server token each) that arrived inside each window. */
    private static double[] eventsPerWindow(List<ScheduledRecord> timeline, List<IterationResult> windows) {
        double[] counts = new double[windows.size()];
        for (ScheduledRecord r : timeline) {
            for (long e : r.record().contentEventNanos()) {
                long t = r.actualSendOffsetNanos() + e;
                for (int k = 0; k < windows.size(); k++) {
                    if (inside(windows.get(k), t)) counts[k]++;
                }
            }
        }
        return counts;
    }

    private static long deliveredInside(List<ScheduledRecord> timeline, IterationResult window, FailureKind kind) {
        long n = 0;
        for (ScheduledRecord r : timeline) {
            RequestRecord rec = r.record();
            if (rec.succeeded() || rec.failure().kind() != kind) continue;
            for (long e : rec.contentEventNanos()) if (inside(window, r.actualSendOffsetNanos() + e)) n++;
        }
        return n;
    }

    private static boolean inside(IterationResult window, long t) {
        return t >= window.startOffsetNanos() && t < window.startOffsetNanos() + window.durationNanos();
    }
}
