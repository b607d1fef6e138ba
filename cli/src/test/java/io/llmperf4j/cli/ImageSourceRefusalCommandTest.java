package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Image flags that would send nothing, or two sources at once, are refused before a request (images QA 1 and 4). */
class ImageSourceRefusalCommandTest {
    // nothing listens on port 9: a refusal must come before any request
    private static final Map<String, String> ENV = Map.of("OPENAI_API_BASE", "http://127.0.0.1:9/v1",
            "OPENAI_API_KEY", "x");

    private static String[] args(Path out, String... more) {
        List<String> all = new ArrayList<>(List.of("token-benchmark", "--model", "vl", "--max-num-completed-requests",
                "2", "--num-concurrent-requests", "1", "--results-dir", out.toString(), "--no-server-metrics",
                "--no-client-warmup"));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @Test
    void imageDetailWithoutAnyImageIsAUsageError(@TempDir Path tmp) {
        CliRun.of(ENV, args(tmp.resolve("out"), "--prompt-mode", "exact", "--mean-input-tokens", "60",
                        "--stddev-input-tokens", "0", "--mean-output-tokens", "4", "--stddev-output-tokens", "0",
                        "--image-detail", "low"))
                .assertOneErrorLine(2, "--image-detail sets the detail of images, and this workload has none");
    }

    @Test
    void imageDirWithADatasetOfItsOwnImagesIsAUsageError(@TempDir Path tmp) throws IOException {
        Path folder = Files.createDirectories(tmp.resolve("imgdir"));
        ImageIO.write(new BufferedImage(8, 8, BufferedImage.TYPE_INT_RGB), "png", folder.resolve("a.png").toFile());
        ImageIO.write(new BufferedImage(8, 8, BufferedImage.TYPE_INT_RGB), "png", tmp.resolve("own.png").toFile());
        Path dataset = Files.writeString(tmp.resolve("p.jsonl"),
                "{\"prompt\": \"What is this?\", \"max_tokens\": 4, \"images\": [\"own.png\"]}\n"
                        + "{\"prompt\": \"Text only\", \"max_tokens\": 4}\n");
        CliRun.of(ENV, args(tmp.resolve("out"), "--dataset", "prompts:" + dataset, "--image-dir", folder.toString()))
                .assertOneErrorLine(2, "--image-dir adds its files to every request, and the dataset's lines have "
                        + "their own \"images\": use one of the two");
    }
}
