package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server's own token counters judged beside the client's counts over the same span (SERVER_TOKENS_DIFFER), against
 * the simulator's true /metrics served through {@link MetricsProxy}, which scales a counter as a server whose
 * tokenizer is not the client's (or that counts something else) would serve it. QA: a server keeping vLLM's /metrics
 * truly, sending no usage, its generation counter half the client's count: nothing warned, and MULTI_TOKEN_CHUNKS
 * read the client tokenizer's two tokens per chunk as chunks of several tokens.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServerTokenCountsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int REQUESTS = 24;
    private static final int OUTPUT = 20;
    private static final String BASE = "sim_40_20";

    private static SimulatedServer simulator(int tokensPerChunk) {
        return SimulatedServer.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(10))
                .interTokenDelay(Duration.ofMillis(2)).tokensPerChunk(tokensPerChunk).build());
    }

    private static String origin(SimulatedServer s) {
        return s.baseUrl().substring(0, s.baseUrl().length() - "/v1".length());
    }

    private static CliRun run(SimulatedServer s, Path dir, String metricsUrl, String... extra) {
        return run(s, dir, metricsUrl, 4, extra);
    }

    private static CliRun run(SimulatedServer s, Path dir, String metricsUrl, int concurrency, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "sim", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", Integer.toString(OUTPUT),
                "--stddev-output-tokens", "0", "--max-num-completed-requests", Integer.toString(REQUESTS),
                "--num-concurrent-requests", Integer.toString(concurrency), "--no-client-warmup", "--server-metrics", metricsUrl,
                "--server-metrics-interval", "0.1", "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(Map.of("OPENAI_API_BASE", s.baseUrl(), "OPENAI_API_KEY", "k"), args.toArray(String[]::new));
    }

    /** The summary's warnings by code (each code's message); a code raised twice fails. */
    private static Map<String, String> warnings(Path dir) throws IOException {
        JsonNode summary = JSON.readTree(dir.resolve(BASE + "_llmperf4j_summary.json").toFile());
        Map<String, String> out = new HashMap<>();
        for (JsonNode w : summary.get("warnings")) {
            assertEquals(null, out.put(w.get("code").asText(), w.get("message").asText()), "once: " + w);
        }
        return out;
    }

    /**
     * Two tokens per chunk by the client tokenizer (the simulator's, Llama-2's), one by the server's counter (halved:
     * its tokenizer counts each chunk as one token), no usage: the client tokenizer is not the model's, said once;
     * the chunks carry one token each, so no MULTI_TOKEN_CHUNKS (the old code raised it and nothing else).
     */
    @Test
    void aCounterAtOneTokenPerChunkWithoutUsageIsTheClientTokenizerNotChunksOfSeveral(@TempDir Path tmp)
            throws Exception {
        try (SimulatedServer s = simulator(2); MetricsProxy metrics = MetricsProxy.scaling(origin(s), 0.5, 1)) {
            CliRun run = run(s, tmp, metrics.url(), "--no-stream-usage");
            assertEquals(0, run.exitCode(), run::toString);
            Map<String, String> codes = warnings(tmp);
            assertFalse(codes.containsKey("MULTI_TOKEN_CHUNKS"), codes::toString);
            String gap = codes.get("SERVER_TOKENS_DIFFER");
            assertNotNull(gap, codes::toString);
            assertTrue(gap.contains("one token per chunk"), gap);
            assertTrue(gap.contains("the client tokenizer is not the model's"), gap);
            assertEquals(1, (run.out() + run.err()).lines().filter(l -> l.contains("token counters (its /metrics)"))
                    .count(), run::toString);
            JsonNode client = JSON.readTree(tmp.resolve(BASE + "_llmperf4j_summary.json").toFile())
                    .get("server").get("client_same_span");
            assertTrue(client.get("content_events").asInt() > 0, client::toString);
        }
    }

    /**
     * The same stream with the server's counter as it is (two tokens per chunk by both counts): the chunks do carry
     * several tokens, MULTI_TOKEN_CHUNKS stands, and the counts agree: no SERVER_TOKENS_DIFFER.
     */
    @Test
    void countersThatAgreeLeaveMultiTokenChunksAndWarnNothingMore(@TempDir Path tmp) throws Exception {
        try (SimulatedServer s = simulator(2); MetricsProxy metrics = MetricsProxy.scaling(origin(s), 1, 1)) {
            CliRun run = run(s, tmp, metrics.url(), "--no-stream-usage");
            assertEquals(0, run.exitCode(), run::toString);
            Map<String, String> codes = warnings(tmp);
            assertTrue(codes.containsKey("MULTI_TOKEN_CHUNKS"), codes::toString);
            assertFalse(codes.containsKey("SERVER_TOKENS_DIFFER"), codes::toString);
        }
    }

    /**
     * One token per chunk by both, the server's counter doubled, no usage: by its own counter the server sent two
     * tokens per chunk; said with the tokenizer, and MULTI_TOKEN_CHUNKS by the server's count.
     */
    @Test
    void aCounterAtSeveralTokensPerChunkIsSaidByTheServersCount(@TempDir Path tmp) throws Exception {
        try (SimulatedServer s = simulator(1); MetricsProxy metrics = MetricsProxy.scaling(origin(s), 2, 1)) {
            CliRun run = run(s, tmp, metrics.url(), "--no-stream-usage");
            assertEquals(0, run.exitCode(), run::toString);
            Map<String, String> codes = warnings(tmp);
            assertTrue(codes.get("SERVER_TOKENS_DIFFER").contains("the server sends several tokens per chunk"),
                    codes::toString);
            assertTrue(codes.get("MULTI_TOKEN_CHUNKS").contains("by the server's generation-token counter"),
                    codes::toString);
        }
    }

    /**
     * With usage the client counts in the server's unit: a counter at twice it counts something else. Its prompt
     * counter, 1.5 times the usage's prompt_tokens, too: one warning says both.
     */
    @Test
    void withUsageACounterThatDiffersCountsSomethingElse(@TempDir Path tmp) throws Exception {
        try (SimulatedServer s = simulator(1); MetricsProxy metrics = MetricsProxy.scaling(origin(s), 2, 1.5)) {
            CliRun run = run(s, tmp, metrics.url());
            assertEquals(0, run.exitCode(), run::toString);
            Map<String, String> codes = warnings(tmp);
            String gap = codes.get("SERVER_TOKENS_DIFFER");
            assertNotNull(gap, codes::toString);
            assertTrue(gap.contains("so the counter counts something else"), gap);
            assertTrue(gap.contains("prefilled"), "the prompt counter too: " + gap);
            assertFalse(codes.containsKey("MULTI_TOKEN_CHUNKS"), codes::toString);
        }
    }

    /**
     * A warmup still running when the window opens (6 warmup requests at concurrency 8): the server's prompt tokens
     * from the opening scrape are set beside the input tokens of the requests prefilled in the same span, as its
     * generation tokens are. As served they agree (no warning); at twice, the gap is warned of (the bracket holds the
     * warmup's prompts that ran across the opening, so 1.5 times can lie within it).
     */
    @Test
    void promptTokensAfterAWarmupAreComparedOverTheSameSpan(@TempDir Path tmp) throws Exception {
        try (SimulatedServer s = simulator(1)) {
            for (double scale : new double[]{1, 2}) {
                Path dir = tmp.resolve("x" + scale);
                try (MetricsProxy metrics = MetricsProxy.scaling(origin(s), 1, scale)) {
                    CliRun run = run(s, dir, metrics.url(), 8, "--warmup-requests", "6");
                    assertEquals(0, run.exitCode(), run::toString);
                    JsonNode server = JSON.readTree(dir.resolve(BASE + "_llmperf4j_summary.json").toFile())
                            .get("server");
                    assertTrue(server.get("client_same_span").get("prompt_tokens").asLong() > 0, server::toString);
                    Map<String, String> codes = warnings(dir);
                    if (scale == 1) {
                        assertFalse(codes.containsKey("SERVER_TOKENS_DIFFER"), codes + " " + server);
                    } else {
                        assertTrue(codes.get("SERVER_TOKENS_DIFFER").contains("prefilled"), codes::toString);
                    }
                }
            }
        }
    }
}
