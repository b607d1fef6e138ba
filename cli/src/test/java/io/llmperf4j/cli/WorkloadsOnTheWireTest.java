package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.Tokenizers;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What traces, manifests, shared prefixes, ShareGPT sessions and images send, read at the wire (a server on
 * 127.0.0.1 that keeps every body, or the simulator's prefix cache), for QA's findings 1, 5, 7, 11, 12, 13 and 14.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WorkloadsOnTheWireTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Finding 1: a block that ends one prompt is the same bytes where it goes on in the next, so the server hits it. */
    @Test
    void aTraceBlockEndingAPromptIsSharedWithTheNextPrompt(@TempDir Path tmp) throws IOException {
        assumeTrue(Tokenizers.builtInLlama2Available(), "built-in Llama-2 tokenizer not derived in this build");
        Path trace = Files.writeString(tmp.resolve("t2.jsonl"), """
                {"timestamp": 0, "input_length": 1024, "output_length": 4, "hash_ids": [1, 2]}
                {"timestamp": 200, "input_length": 1300, "output_length": 4, "hash_ids": [1, 2, 3]}
                """);
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ZERO).interTokenDelay(Duration.ofMillis(1))
                .promptTokenCounter(Tokenizers.builtInLlama2()).prefixBlockTokens(512).build())) {
            CliRun run = CliRun.of(openAi(server.baseUrl()), "token-benchmark", "--model", "sim", "--trace",
                    "mooncake:" + trace, "--trace-speedup", "2", "--no-client-warmup", "--results-dir",
                    tmp.resolve("out").toString());
            assertEquals(0, run.exitCode(), run::toString);
        }
        List<CSVRecord> rows = RunFolder.csv(tmp.resolve("out"));
        rows.sort((a, b) -> a.get("prompt_index").compareTo(b.get("prompt_index")));
        assertEquals(List.of("1024", "1300"), rows.stream().map(r -> r.get("number_input_tokens")).toList());
        assertEquals("1024", rows.get(1).get("cached_tokens"), "blocks 1 and 2 of the first prompt: " + rows);
    }

    /**
     * Finding 14: a trace at one timestamp has no mean rate (not 0.00 req/s), and its replay says what it sends
     * instead of a rate (not "mean 2 req/s", "scheduled - req/s"); a --trace-duration under a millisecond keeps the
     * request at 0, which is replayed as one request at t=0.
     */
    @Test
    void aTraceAtOneInstantHasNoRateAndASubMillisecondCutKeepsTheFirstRequest(@TempDir Path tmp) throws IOException {
        Path ties = Files.writeString(tmp.resolve("ties.jsonl"), """
                {"timestamp": 1000, "input_length": 100, "output_length": 3}
                {"timestamp": 1000, "input_length": 100, "output_length": 3}
                """);
        CliRun stats = CliRun.of(Map.of(), "trace-stats", "mooncake:" + ties);
        assertEquals(0, stats.exitCode(), stats::toString);
        assertTrue(stats.out().contains(": 2 requests over 0.000 s (all at one timestamp: no mean rate)\n"),
                stats::toString);
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            Path results = tmp.resolve("ties-run");
            CliRun run = CliRun.of(openAi(server.baseUrl()), "token-benchmark", "--model", "m", "--trace",
                    "mooncake:" + ties, "--no-client-warmup", "--results-dir", results.toString());
            assertEquals(0, run.exitCode(), run::toString);
            assertEquals(2, server.bodies().size(), run::toString);
            // the run's page says it in the same words, not the open loop's stand-in rate
            String html;
            try (var files = Files.list(results)) {
                html = Files.readString(files.filter(p -> p.toString().endsWith(".html")).findFirst().orElseThrow());
            }
            assertTrue(html.contains("speedup 1), all 2 requests at t=0 (a burst)"), html);
            assertFalse(html.contains("speedup 1), mean"), html);
            assertTrue(run.err().contains("llmperf4j: load: trace replay of mooncake:" + ties + " (2 requests over 0 s, "
                    + "speedup 1), all 2 requests at t=0 (a burst)\n"), run::toString);
            assertTrue(run.out().contains("Open loop: trace replay of mooncake:" + ties + " (2 requests over 0 s, "
                    + "speedup 1), all 2 requests at t=0 (a burst), no cap on requests in flight\n"), run::toString);
            assertTrue(run.out().contains("\nRates: scheduled all 2 requests at t=0 (a burst), sent "), run::toString);
            assertFalse(run.out().contains("req/s, no cap") || run.out().contains("scheduled -"), run::toString);
        }
        Path gap = Files.writeString(tmp.resolve("gap.jsonl"), """
                {"timestamp": 0, "input_length": 100, "output_length": 3}
                {"timestamp": 100, "input_length": 120, "output_length": 3}
                {"timestamp": 30000, "input_length": 140, "output_length": 3}
                """);
        CliRun gapStats = CliRun.of(Map.of(), "trace-stats", "mooncake:" + gap, "--trace-speedup", "10");
        assertTrue(gapStats.out().contains(": 3 requests over 3.000 s (mean 0.667 req/s)\n"), gapStats::toString);
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            CliRun run = CliRun.of(openAi(server.baseUrl()), "token-benchmark", "--model", "m", "--trace",
                    "mooncake:" + gap, "--trace-duration", "0.0001", "--no-client-warmup");
            assertEquals(0, run.exitCode(), run::toString);
            assertEquals(1, server.bodies().size(), run::toString);
            assertTrue(run.err().contains("(1 request over 0 s, speedup 1, first 0.0001 s), its one request at t=0\n"),
                    run::toString);
            // one send has no rate between sends: said, never a bare '-'
            assertTrue(run.out().contains("\nRates: scheduled its one request at t=0, sent rate none (1 sent: a rate "
                    + "needs two), completed "), run::toString);
        }
    }

    /** Finding 11: a replay's limit is the trace's span plus --timeout, said on the console and in the summary. */
    @Test
    void aTraceReplaysLimitIsItsSpanPlusTimeoutAndSaysSo(@TempDir Path tmp) throws IOException {
        Path gap = Files.writeString(tmp.resolve("gap.jsonl"), """
                {"timestamp": 0, "input_length": 100, "output_length": 3}
                {"timestamp": 100, "input_length": 120, "output_length": 3}
                {"timestamp": 30000, "input_length": 140, "output_length": 3}
                """);
        Path out = tmp.resolve("out");
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            // sped up 30x: 0, 3.3 ms, 1 s; a span of 1 s, so a limit of 1 + 1 s
            CliRun run = CliRun.of(openAi(server.baseUrl()), "token-benchmark", "--model", "m", "--trace",
                    "mooncake:" + gap, "--trace-speedup", "30", "--timeout", "1", "--no-client-warmup",
                    "--results-dir", out.toString());
            assertEquals(0, run.exitCode(), run::toString);
            assertTrue(run.err().contains("llmperf4j: trace replay: run time limit 2 s = the trace's span 1 s "
                    + "+ --timeout 1 s\n"), run::toString);
            assertEquals(3, server.bodies().size(), run::toString);
        }
        JsonNode summary = RunFolder.summary(out);
        assertEquals(2, summary.get("settings").get("timeout_s").asInt(), summary.get("settings")::toString);
    }

    /** Finding 5: a manifest replays its own requests, each once; a smaller count is a prefix, a larger one capped. */
    @Test
    void aManifestReplaysItsRequestsOnceEach(@TempDir Path tmp) throws IOException {
        Path manifest = tmp.resolve("w.jsonl");
        Path sessions = tmp.resolve("s.jsonl");
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            Map<String, String> env = openAi(server.baseUrl());
            CliRun save = CliRun.of(env, "token-benchmark", "--model", "m", "--mean-input-tokens", "60",
                    "--stddev-input-tokens", "20", "--max-num-completed-requests", "6", "--save-workload",
                    manifest.toString(), "--no-client-warmup");
            assertEquals(0, save.exitCode(), save::toString);
            List<String> saved = new ArrayList<>();
            for (String line : Files.readAllLines(manifest).subList(1, 7)) saved.add(JSON.readTree(line).get("prompt").asText());
            assertEquals(sorted(saved), sorted(userPrompts(server.bodies())), "the manifest holds what was sent");
            assertEquals(6, saved.stream().distinct().count(), "six different prompts");

            server.bodies.clear();
            CliRun all = CliRun.of(env, "token-benchmark", "--model", "m", "--workload", manifest.toString(),
                    "--no-client-warmup");
            assertEquals(0, all.exitCode(), all::toString);
            assertEquals(sorted(saved), sorted(userPrompts(server.bodies())), "each request once, none again");

            server.bodies.clear();
            CliRun three = CliRun.of(env, "token-benchmark", "--model", "m", "--workload", manifest.toString(),
                    "--max-num-completed-requests", "3", "--num-concurrent-requests", "1", "--no-client-warmup");
            assertEquals(0, three.exitCode(), three::toString);
            assertEquals(saved.subList(0, 3), userPrompts(server.bodies()), "the manifest's first three, in order");
            assertTrue(three.err().contains("llmperf4j: replaying the first 3 of the 6 requests of " + manifest),
                    three::toString);

            server.bodies.clear();
            CliRun ten = CliRun.of(env, "token-benchmark", "--model", "m", "--workload", manifest.toString(),
                    "--max-num-completed-requests", "10", "--no-client-warmup", "--results-dir",
                    tmp.resolve("ten").toString());
            assertEquals(0, ten.exitCode(), ten::toString);
            assertEquals(sorted(saved), sorted(userPrompts(server.bodies())));
            assertTrue(ten.err().contains("llmperf4j: " + manifest + " holds 6 requests: --max-num-completed-requests "
                    + "10 is capped at 6 (a replay sends each request once)"), ten::toString);
            assertEquals(6, RunFolder.summary(tmp.resolve("ten")).get("settings").get("max_num_completed_requests").asInt());

            server.bodies.clear();
            CliRun saveSessions = CliRun.of(env, "token-benchmark", "--model", "m", "--turns", "fixed:3",
                    "--mean-input-tokens", "60", "--stddev-input-tokens", "0", "--max-num-completed-requests", "7",
                    "--save-workload", sessions.toString(), "--no-client-warmup");
            assertEquals(0, saveSessions.exitCode(), saveSessions::toString);
            server.bodies.clear();
            CliRun replaySessions = CliRun.of(env, "token-benchmark", "--model", "m", "--workload",
                    sessions.toString(), "--no-client-warmup", "--results-dir", tmp.resolve("sessions").toString());
            assertEquals(0, replaySessions.exitCode(), replaySessions::toString);
            assertEquals(7, server.bodies().size(), replaySessions::toString);
            List<String> ids = RunFolder.csv(tmp.resolve("sessions")).stream().map(r -> r.get("session_id") + "/"
                    + r.get("turn")).sorted().toList();
            assertEquals(List.of("s0/0", "s0/1", "s0/2", "s1/0", "s1/1", "s1/2", "s2/0"), ids);
        }
    }

    /**
     * Finding 7: with --shared-prefix-groups, number_input_tokens counts the system prompt sent, as --prefix-tokens
     * alone counts its prefix: the system prompt, a blank line and the prompt as one text.
     */
    @Test
    void sharedPrefixGroupsCountTheSystemPromptTheySend(@TempDir Path tmp) throws IOException {
        assumeTrue(Tokenizers.builtInLlama2Available(), "built-in Llama-2 tokenizer not derived in this build");
        Tokenizer llama = Tokenizers.builtInLlama2();
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            Map<String, String> env = openAi(server.baseUrl());
            CliRun groups = CliRun.of(env, "token-benchmark", "--model", "m", "--shared-prefix-groups", "3",
                    "--prefix-tokens", "100", "--input-lengths", "fixed:40", "--prompt-mode", "exact",
                    "--max-num-completed-requests", "4", "--num-concurrent-requests", "1", "--no-client-warmup",
                    "--results-dir", tmp.resolve("groups").toString());
            assertEquals(0, groups.exitCode(), groups::toString);
            List<JsonNode> bodies = server.bodies();
            List<CSVRecord> rows = RunFolder.csv(tmp.resolve("groups"));
            assertEquals(4, rows.size());
            for (CSVRecord row : rows) {
                JsonNode messages = bodies.get(Integer.parseInt(row.get("prompt_index"))).get("messages");
                String system = messages.get(0).get("content").asText();
                String user = messages.get(1).get("content").asText();
                assertEquals(100, llama.count(system));
                assertEquals(40, llama.count(user));
                assertEquals(llama.count(system + "\n\n" + user), Integer.parseInt(row.get("number_input_tokens")),
                        row::toString);
            }
            server.bodies.clear();
            CliRun single = CliRun.of(env, "token-benchmark", "--model", "m", "--prefix-tokens", "100",
                    "--input-lengths", "fixed:40", "--prompt-mode", "exact", "--max-num-completed-requests", "4",
                    "--num-concurrent-requests", "1", "--no-client-warmup", "--results-dir",
                    tmp.resolve("single").toString());
            assertEquals(0, single.exitCode(), single::toString);
            List<JsonNode> singleBodies = server.bodies();
            for (CSVRecord row : RunFolder.csv(tmp.resolve("single"))) {
                String user = singleBodies.get(Integer.parseInt(row.get("prompt_index"))).get("messages").get(1)
                        .get("content").asText();
                assertEquals(llama.count(user), Integer.parseInt(row.get("number_input_tokens")), row::toString);
            }
            // the same flag, the same count: both 100 + the blank line + 40, one BOS
            assertEquals(RunFolder.csv(tmp.resolve("single")).get(0).get("number_input_tokens"),
                    rows.get(0).get("number_input_tokens"));
        }
    }

    /** Finding 12: ShareGPT --turns all sends a conversation's system prompt, and counts it in the first turn. */
    @Test
    void shareGptSessionsSendTheConversationsSystemPrompt(@TempDir Path tmp) throws IOException {
        Path data = Files.writeString(tmp.resolve("sg.json"), """
                [{"id":"b_0","conversations":[{"from":"system","value":"You are terse."},\
                {"from":"human","value":"Name a color of the sky in the evening time."},{"from":"gpt","value":"Orange."},\
                {"from":"human","value":"And at night?"},{"from":"gpt","value":"Black, with stars shining."}]}]
                """);
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            CliRun run = CliRun.of(openAi(server.baseUrl()), "token-benchmark", "--model", "m", "--dataset",
                    "sharegpt:" + data, "--turns", "all", "--max-num-completed-requests", "2",
                    "--no-client-warmup", "--results-dir", tmp.resolve("out").toString());
            assertEquals(0, run.exitCode(), run::toString);
            List<JsonNode> bodies = server.bodies();
            assertEquals(2, bodies.size());
            for (JsonNode body : bodies) {
                assertEquals("system", body.get("messages").get(0).get("role").asText());
                assertEquals("You are terse.", body.get("messages").get(0).get("content").asText(), body::toString);
            }
            JsonNode second = bodies.get(1).get("messages");
            assertEquals(4, second.size(), "system, first question, its reply, the second question");
            assertEquals("And at night?", second.get(3).get("content").asText());
        }
        if (Tokenizers.builtInLlama2Available()) {
            Tokenizer llama = Tokenizers.builtInLlama2();
            CSVRecord first = RunFolder.csv(tmp.resolve("out")).stream().filter(r -> r.get("turn").equals("0")).findFirst()
                    .orElseThrow();
            assertEquals(llama.count("You are terse.\n\nName a color of the sky in the evening time."),
                    Integer.parseInt(first.get("number_input_tokens")));
        }
    }

    /**
     * Finding 13: OpenAI's content parts put the text first, Anthropic's blocks the images first (Anthropic's
     * recommendation); docs/images.md says which.
     */
    @Test
    void imagesFollowTheTextForOpenAiAndPrecedeItForAnthropic() throws IOException {
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            CliRun openAi = CliRun.of(openAi(server.baseUrl()), "token-benchmark", "--model", "m",
                    "--images-per-request", "2", "--image-size", "16x16", "--max-num-completed-requests", "1",
                    "--no-client-warmup");
            assertEquals(0, openAi.exitCode(), openAi::toString);
            CliRun anthropic = CliRun.of(Map.of("ANTHROPIC_API_BASE", server.baseUrl(), "ANTHROPIC_API_KEY", "k"),
                    "token-benchmark", "--model", "m", "--llm-api", "anthropic", "--images-per-request", "2",
                    "--image-size", "16x16", "--max-num-completed-requests", "1", "--no-client-warmup");
            assertEquals(0, anthropic.exitCode(), anthropic::toString);
            List<JsonNode> bodies = server.bodies();
            assertEquals(2, bodies.size());
            assertEquals(List.of("text", "image_url", "image_url"), types(bodies.get(0).get("messages").get(1)));
            assertEquals(List.of("image", "image", "text"), types(bodies.get(1).get("messages").get(0)));
        }
        String docs = Files.readString(docsFile("images.md"));
        assertTrue(docs.contains("after its text for OpenAI (`[text, image_url…]`), before it for Anthropic "
                + "(`[image…, text]`"), "docs/images.md says the order each API gets");
    }

    /**
     * A session's earlier user turn is resent with its images, as first sent (QA: the history held its text only, so
     * the server lost the image and its prefix cache could not hit), for both APIs.
     */
    @Test
    void aSessionsEarlierTurnsAreResentWithTheirImages() throws IOException {
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            String[] session = {"token-benchmark", "--model", "m", "--turns", "2", "--images-per-request", "1",
                "--image-size", "16x16", "--max-num-completed-requests", "2", "--num-concurrent-requests", "1",
                "--no-client-warmup"};
            CliRun openAi = CliRun.of(openAi(server.baseUrl()), session);
            assertEquals(0, openAi.exitCode(), openAi::toString);
            List<JsonNode> chat = server.bodies();
            assertEquals(2, chat.size());
            JsonNode first = chat.get(0).get("messages").get(1);
            JsonNode resent = chat.get(1).get("messages").get(1);
            assertEquals(List.of("text", "image_url"), types(resent), "turn 1 resends turn 0 with its image");
            assertEquals(first, resent, "byte for byte as turn 0 sent it");
            assertEquals("assistant", chat.get(1).get("messages").get(2).get("role").asText());

            server.bodies.clear();
            String[] anthropicSession = session.clone();
            CliRun anthropic = CliRun.of(Map.of("ANTHROPIC_API_BASE", server.baseUrl(), "ANTHROPIC_API_KEY", "k"),
                    concat(anthropicSession, "--llm-api", "anthropic"));
            assertEquals(0, anthropic.exitCode(), anthropic::toString);
            List<JsonNode> messages = server.bodies();
            assertEquals(2, messages.size());
            assertEquals(messages.get(0).get("messages").get(0), messages.get(1).get("messages").get(0));
            assertEquals(List.of("image", "text"), types(messages.get(1).get("messages").get(0)));
        }
    }

    private static String[] concat(String[] args, String... more) {
        String[] all = java.util.Arrays.copyOf(args, args.length + more.length);
        System.arraycopy(more, 0, all, args.length, more.length);
        return all;
    }

    private static Path docsFile(String name) {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("docs"))) dir = dir.getParent();
        assumeTrue(dir != null, "docs folder not found");
        return dir.resolve("docs").resolve(name);
    }

    private static List<String> types(JsonNode message) {
        List<String> types = new ArrayList<>();
        for (JsonNode part : message.get("content")) types.add(part.get("type").asText());
        return types;
    }

    private static List<String> userPrompts(List<JsonNode> bodies) {
        List<String> prompts = new ArrayList<>();
        for (JsonNode body : bodies) {
            JsonNode messages = body.get("messages");
            prompts.add(messages.get(messages.size() - 1).get("content").asText());
        }
        return prompts;
    }

    private static List<String> sorted(List<String> list) {
        return list.stream().sorted().toList();
    }

    private static Map<String, String> openAi(String baseUrl) {
        return Map.of("OPENAI_API_BASE", baseUrl, "OPENAI_API_KEY", "k");
    }
}
