package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** --image-detail: OpenAI's image_url detail on every image part, over real sockets to servers on 127.0.0.1. */
class ImageDetailCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static String[] args(Path out, String... more) {
        List<String> all = new ArrayList<>(List.of("token-benchmark", "--model", "vl", "--prompt-mode", "exact",
                "--mean-input-tokens", "60", "--stddev-input-tokens", "0", "--mean-output-tokens", "4",
                "--stddev-output-tokens", "0", "--max-num-completed-requests", "3", "--num-concurrent-requests", "1",
                "--results-dir", out.toString(), "--no-server-metrics", "--no-client-warmup"));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    private static Path file(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(suffix)).findFirst().orElseThrow();
        }
    }

    private static JsonNode metadata(Path dir) throws IOException {
        return JSON.readTree(file(dir, "_llmperf4j_summary.json").toFile()).path("settings").path("metadata");
    }

    @Test
    void everyImagePartCarriesTheDetailAndTheSummarySaysIt(@TempDir Path tmp) throws IOException {
        Path manifest = tmp.resolve("workload.jsonl");
        try (ImageRecordingServer server = new ImageRecordingServer()) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x");
            CliRun run = CliRun.of(env, args(tmp.resolve("low"), "--images-per-request", "2", "--image-size",
                    "32x32", "--image-detail", "LOW", "--save-workload", manifest.toString(),
                    // a user's metadata of the same key does not hide what was sent
                    "--metadata", "llmperf4j_image_detail=auto"));
            assertEquals(0, run.exitCode(), run::toString);
            assertEquals(List.of("low", "low", "low", "low", "low", "low"), server.details, "3 requests x 2 images");
            assertEquals("low", metadata(tmp.resolve("low")).path("llmperf4j_image_detail").asText(), run.toString());
            assertTrue(Files.readAllLines(manifest).get(0).contains("\"detail\":\"low\""), "the manifest's generation");

            // a replay's images (from the manifest, not the flags that made them) carry the flag's detail too
            server.details.clear();
            CliRun replay = CliRun.of(env, args(tmp.resolve("replay"), "--workload", manifest.toString(),
                    "--image-detail", "high"));
            assertEquals(0, replay.exitCode(), replay::toString);
            assertEquals(List.of("high", "high", "high", "high", "high", "high"), server.details);

            server.details.clear();
            CliRun plain = CliRun.of(env, args(tmp.resolve("plain"), "--images-per-request", "1", "--image-size",
                    "32x32"));
            assertEquals(0, plain.exitCode(), plain::toString);
            assertEquals(List.of(ImageRecordingServer.NO_DETAIL, ImageRecordingServer.NO_DETAIL,
                    ImageRecordingServer.NO_DETAIL), server.details, "no flag: no detail, as before");
            assertFalse(metadata(tmp.resolve("plain")).has("llmperf4j_image_detail"));
        }
    }

    @Test
    void aBadValueOrAnApiWithoutDetailIsAUsageError(@TempDir Path tmp) {
        Map<String, String> env = Map.of("OPENAI_API_BASE", "http://127.0.0.1:9/v1", "OPENAI_API_KEY", "x",
                "ANTHROPIC_API_BASE", "http://127.0.0.1:9/v1", "ANTHROPIC_API_KEY", "x");
        CliRun.of(env, args(tmp.resolve("a"), "--images-per-request", "1", "--image-detail", "medium"))
                .assertOneErrorLine(2, "--image-detail must be low, high or auto (got 'medium')");
        CliRun.of(env, args(tmp.resolve("b"), "--llm-api", "anthropic", "--images-per-request", "1",
                "--image-detail", "high"))
                .assertOneErrorLine(2, "--image-detail is a field of OpenAI's image_url part: --llm-api anthropic "
                        + "has none (use --llm-api openai)");
    }

    /** The simulator counts an image by its pixels alone (docs/images.md): the same usage whatever the detail. */
    @Test
    void theSimulatorIgnoresTheDetail(@TempDir Path tmp) throws IOException {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ofMillis(1)).build())) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x");
            List<String> usage = new ArrayList<>();
            for (String detail : List.of("low", "high")) {
                Path out = tmp.resolve(detail);
                CliRun run = CliRun.of(env, args(out, "--images-per-request", "1", "--image-size", "256x256",
                        "--image-detail", detail));
                assertEquals(0, run.exitCode(), run::toString);
                try (Reader reader = Files.newBufferedReader(file(out, "_requests.csv"), StandardCharsets.UTF_8);
                     CSVParser parser = CSVParser.parse(reader, CSVFormat.RFC4180.builder().setHeader()
                             .setSkipHeaderRecord(true).get())) {
                    // by prompt: the rows come in the order the requests ended, which concurrent requests vary
                    parser.getRecords().stream()
                            .sorted(java.util.Comparator.comparingInt(row -> Integer.parseInt(row.get("prompt_index"))))
                            .forEach(row -> usage.add(detail + " " + (Integer.parseInt(row.get("prompt_tokens_server"))
                                    - Integer.parseInt(row.get("number_input_tokens")))));
                }
            }
            // the same seed sends the same prompts and images: prompt by prompt, the same count with either detail
            assertEquals(usage.subList(0, 3).stream().map(u -> u.replace("low ", "")).toList(),
                    usage.subList(3, 6).stream().map(u -> u.replace("high ", "")).toList(), usage.toString());
            assertTrue(usage.get(0).matches("low 8[3-6]"), "83 image tokens (+ the prompt's few): " + usage);
        }
    }
}
