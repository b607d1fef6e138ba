package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import io.llmperf4j.tokenize.Tokenizers;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** token-benchmark with images, over real sockets: against the simulator, and against a server that records bytes. */
class ImageBenchmarkCommandTest {
    private static final Duration PER_IMAGE_TOKEN = Duration.ofNanos(300_000);
    private static final int TOKENS_1024 = 37 * 37 + 2;
    private static final int TOKENS_256 = 9 * 9 + 2;

    private static String[] args(Path out, String... more) {
        List<String> all = new ArrayList<>(List.of("token-benchmark", "--model", "qwen2.5-vl", "--prompt-mode", "exact",
                "--mean-input-tokens", "60", "--stddev-input-tokens", "0", "--mean-output-tokens", "4",
                "--stddev-output-tokens", "0", "--max-num-completed-requests", "3", "--num-concurrent-requests", "1",
                "--results-dir", out.toString(), "--no-server-metrics", "--no-client-warmup"));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    private static List<CSVRecord> csv(Path dir) throws IOException {
        Path file;
        try (Stream<Path> files = Files.list(dir)) {
            file = files.filter(p -> p.toString().endsWith("_requests.csv")).findFirst().orElseThrow();
        }
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8);
             CSVParser parser = CSVParser.parse(reader, CSVFormat.RFC4180.builder().setHeader()
                     .setSkipHeaderRecord(true).get())) {
            return parser.getRecords();
        }
    }

    @Test
    void ttftGrowsWithImageSizeAndServerUsageCountsTheImageTokens(@TempDir Path tmp) throws IOException {
        // the server's own schedule: from the request's arrival to its first content's due time, per response id
        // (one request at a time, so none waits for a sequence slot and the clock starts at arrival)
        Map<String, Long> scheduledTtft = new ConcurrentHashMap<>();
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ofMillis(1))
                .promptTokenCounter(Tokenizers.builtInLlama2()).prefillPerImageToken(PER_IMAGE_TOKEN)
                .timingListener(t -> scheduledTtft.put(t.requestId(), t.firstContentDueNanos() - t.arrivalNanos()))
                .build())) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x");
            CliRun small = CliRun.of(env, args(tmp.resolve("small"), "--images-per-request", "1",
                    "--image-size", "256x256"));
            CliRun large = CliRun.of(env, args(tmp.resolve("large"), "--images-per-request", "1",
                    "--image-size", "1024x1024"));
            assertEquals(0, small.exitCode(), small::toString);
            assertEquals(0, large.exitCode(), large::toString);
            assertTrue(large.err().contains("llmperf4j: images: 3 in 3 requests (3.1 Mpixel, "), large.err());

            long ttft = Duration.ofMillis(1).toNanos();
            for (CSVRecord row : csv(tmp.resolve("small"))) {
                assertEquals("1", row.get("image_count"));
                assertEquals("65536", row.get("image_pixels"));
                assertTrue(Integer.parseInt(row.get("image_bytes")) > 3 * 65536, "noise does not compress");
                int beyondText = Integer.parseInt(row.get("prompt_tokens_server"))
                        - Integer.parseInt(row.get("number_input_tokens"));
                assertTrue(Math.abs(beyondText - TOKENS_256) <= 3, "server count = text + image tokens: " + beyondText);
                assertEquals(ttft + PER_IMAGE_TOKEN.toNanos() * TOKENS_256,
                        scheduledTtft.get(row.get("server_response_id")), "1 ms + 83 image tokens x 0.3 ms");
            }
            long largeSchedule = ttft + PER_IMAGE_TOKEN.toNanos() * TOKENS_1024; // 412.3 ms
            for (CSVRecord row : csv(tmp.resolve("large"))) {
                assertEquals("1048576", row.get("image_pixels"));
                int beyondText = Integer.parseInt(row.get("prompt_tokens_server"))
                        - Integer.parseInt(row.get("number_input_tokens"));
                assertTrue(Math.abs(beyondText - TOKENS_1024) <= 3, "server count = text + image tokens: " + beyondText);
                assertEquals(largeSchedule, scheduledTtft.get(row.get("server_response_id")),
                        "1 ms + 1371 image tokens x 0.3 ms");
                double clientTtft = Double.parseDouble(row.get("ttft_s"));
                assertTrue(clientTtft >= largeSchedule / 1e9, "the client's TTFT includes the prefill: " + clientTtft);
            }
            assertTrue(large.out().contains("Images: 3 sent in 3 requests (3.1 Mpixel, "), large.out());
            assertTrue(large.out().contains("(text + images + template) vs client tokenizer 60.0 (text only)"),
                    large.out());
        }
    }

    @Test
    void aReplaySendsTheSameImageBytes(@TempDir Path tmp) throws IOException {
        Path manifest = tmp.resolve("workload.jsonl");
        Map<String, List<String>> first;
        try (ImageRecordingServer server = new ImageRecordingServer()) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x");
            CliRun run = CliRun.of(env, args(tmp.resolve("first"), "--images-per-request", "uniform:1,3",
                    "--image-width", "uniform:40,90", "--image-height", "50", "--image-format", "jpeg",
                    "--image-quality", "80", "--save-workload", manifest.toString()));
            assertEquals(0, run.exitCode(), run::toString);
            first = new HashMap<>(server.imagesByPrompt);
        }
        List<String> recorded = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : Files.readAllLines(manifest).subList(1, 4)) {
            for (JsonNode image : json.readTree(line).get("images")) recorded.add(image.get("sha256").asText());
        }
        assertEquals(recorded.stream().sorted().toList(), first.values().stream().flatMap(List::stream).sorted()
                .toList(), "the manifest records the digest of every image sent");
        try (ImageRecordingServer server = new ImageRecordingServer()) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x");
            CliRun replay = CliRun.of(env, args(tmp.resolve("replay"), "--workload", manifest.toString()));
            assertEquals(0, replay.exitCode(), replay::toString);
            assertEquals(first, server.imagesByPrompt, "the same image bytes with the same prompts");
        }
    }

    @Test
    void apisWithoutImagesAreRefusedBeforeTheRun(@TempDir Path tmp) throws IOException {
        Map<String, String> env = Map.of("OPENAI_API_BASE", "http://127.0.0.1:9/v1", "OPENAI_API_KEY", "x");
        CliRun.of(env, args(tmp.resolve("a"), "--llm-api", "openai-completions", "--images-per-request", "1"))
                .assertOneErrorLine(2, "--llm-api openai-completions cannot send images: use --llm-api openai");
        CliRun.of(env, args(tmp.resolve("b"), "--image-size", "64x64"))
                .assertOneErrorLine(2, "give --images-per-request too");
        CliRun.of(env, args(tmp.resolve("c"), "--images-per-request", "1", "--image-url-mode", "url"))
                .assertOneErrorLine(2, "synthetic images exist only in this process");
        CliRun.of(env, args(tmp.resolve("d"), "--images-per-request", "two"))
                .assertOneErrorLine(2, "--images-per-request: 'two' is not an image count");

        Path file = tmp.resolve("prompts.jsonl");
        Files.createDirectories(tmp.resolve("img"));
        Files.write(tmp.resolve("img/a.png"), io.llmperf4j.datasets.images.SyntheticImages.encode(
                new io.llmperf4j.datasets.images.ImageSource.Synthetic(1, 30, 30,
                        io.llmperf4j.datasets.images.ImageFormat.PNG, 0)));
        Files.writeString(file, "{\"prompt\":\"what is this?\",\"max_tokens\":3,\"images\":[\"img/a.png\"]}\n");
        CliRun.of(env, args(tmp.resolve("e"), "--dataset", "prompts:" + file, "--llm-api", "openai-completions"))
                .assertOneErrorLine(2, "--llm-api openai-completions cannot send images");
    }
}
