package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.model.TokenCounter;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import io.llmperf4j.tokenize.Tokenizers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The input tokens charged to each image, against the simulator on 127.0.0.1 whose usage.prompt_tokens is exactly
 * K x the client tokenizer's count of the text + TEMPLATE + 83 per 256x256 image (Qwen2-VL's count): a server that
 * counts the text otherwise than the client (another tokenizer, a chat template). Requests without images give the
 * server's count of the text, so the image tokens come out; without them the line says what its figure includes.
 */
class ImageTokensPerImageTest {
    private static final int K = 3;
    private static final int TEMPLATE = 11;
    /** Qwen2-VL's tokens of a 256x256 image: 9 x 9 blocks of 28 pixels, plus its 2 markers. */
    private static final int PER_IMAGE = 9 * 9 + 2;

    /**
     * K x the client's count of the user text (the simulator joins the empty system message and it with "\n"), plus
     * TEMPLATE; --prompt-mode exact, so number_input_tokens is that count (llmperf's mode reports its target).
     */
    private static final TokenCounter SERVER_TEXT = text -> K * Tokenizers.builtInLlama2()
            .count(text.startsWith("\n") ? text.substring(1) : text) + TEMPLATE;

    private static String[] args(Path out, String images) {
        return new String[]{"token-benchmark", "--model", "qwen2.5-vl", "--prompt-mode", "exact",
                "--mean-input-tokens", "60",
                "--stddev-input-tokens", "20", "--mean-output-tokens", "4", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "16", "--num-concurrent-requests", "2", "--results-dir",
                out.toString(), "--no-server-metrics", "--no-client-warmup", "--images-per-request", images,
                "--image-size", "256x256"};
    }

    private static JsonNode images(Path dir) throws IOException {
        Path file;
        try (Stream<Path> files = Files.list(dir)) {
            file = files.filter(p -> p.toString().endsWith("_llmperf4j_summary.json")).findFirst().orElseThrow();
        }
        return new ObjectMapper().readTree(file.toFile()).get("images");
    }

    /** The journal's records as (client text tokens, server prompt tokens, images). */
    private static List<int[]> records(Path dir) throws IOException {
        List<int[]> out = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : Files.readAllLines(dir.resolve("requests.jsonl"))) {
            JsonNode r = json.readTree(line);
            out.add(new int[]{r.get("number_input_tokens").asInt(), r.get("usage_prompt_tokens").asInt(),
                    r.path("tags").path("image_count").asInt()});
        }
        return out;
    }

    @Test
    void requestsWithoutImagesTakeTheTextsDifferenceOffTheImages(@TempDir Path tmp) throws IOException {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .promptTokenCounter(SERVER_TEXT).build())) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x");
            CliRun run = CliRun.of(env, args(tmp.resolve("mixed"), "uniform:0,2"));
            assertEquals(0, run.exitCode(), run::toString);

            List<int[]> records = records(tmp.resolve("mixed"));
            long textOnly = records.stream().filter(r -> r[2] == 0).count();
            assertTrue(textOnly >= 2 && textOnly < records.size(), "some requests with images, some without: "
                    + textOnly);
            assertTrue(records.stream().filter(r -> r[2] == 0).mapToInt(r -> r[0]).distinct().count() >= 2,
                    "text lengths vary, so a difference per request alone would not do");
            for (int[] r : records) assertEquals(K * r[0] + TEMPLATE + PER_IMAGE * r[2], r[1], "the server's rule");

            JsonNode images = images(tmp.resolve("mixed"));
            assertEquals(textOnly, images.get("text_only_requests_with_server_usage").asLong());
            assertEquals(TEMPLATE, images.get("text_server_tokens_fixed").asDouble(), 1e-6);
            assertEquals(K, images.get("text_server_tokens_per_client_token").asDouble(), 1e-9);
            assertEquals(PER_IMAGE, images.get("image_tokens_per_image").asDouble(), 1e-6);
            double beyond = images.get("server_tokens_beyond_text_per_image").asDouble();
            assertTrue(beyond > PER_IMAGE + 50, "the raw difference charges the text's to the images: " + beyond);
            assertTrue(run.out().contains(", 83.0 image tokens per image (the text's server count from the " + textOnly
                    + " requests without images)\n"), run.out());
            String page = Files.readString(tmp.resolve("mixed").resolve(pageName(tmp.resolve("mixed"))));
            assertTrue(page.contains("; input tokens: 83.0 image tokens per image (the text&#39;s server count from "
                    + "the " + textOnly + " requests without images)</td>"), "the page's Images row says the same");
        }
    }

    @Test
    void withImagesOnEveryRequestTheLineSaysWhatItsFigureIncludes(@TempDir Path tmp) throws IOException {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .promptTokenCounter(SERVER_TEXT).build())) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x");
            CliRun run = CliRun.of(env, args(tmp.resolve("all"), "2"));
            assertEquals(0, run.exitCode(), run::toString);

            long server_ = 0;
            long client = 0;
            long sent = 0;
            for (int[] r : records(tmp.resolve("all"))) {
                server_ += r[1];
                client += r[0];
                sent += r[2];
            }
            double beyond = (double) (server_ - client) / sent;
            JsonNode images = images(tmp.resolve("all"));
            assertEquals(0, images.get("text_only_requests_with_server_usage").asInt());
            assertTrue(images.get("image_tokens_per_image").isNull());
            assertEquals(beyond, images.get("server_tokens_beyond_text_per_image").asDouble(), 1e-9);
            assertTrue(run.out().contains(String.format(java.util.Locale.ROOT, ", %.1f more per image (image tokens "
                    + "plus the text's chat template and tokenizer difference: no request without images to tell them "
                    + "apart)\n", beyond)), run.out());
        }
    }

    private static String pageName(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith("_report.html")).findFirst()
                    .orElseThrow();
        }
    }
}
