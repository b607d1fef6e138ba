package io.llmperf4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A key-shaped secret passed inside the sampling parameters (a gateway's key in {@code extra_body}) reaches no result
 * file: llmperf's summary flattens the parameters into keys of its own and wrote the value as given, while
 * llmperf4j's summary and page redacted it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SamplingParamsSecretTest {
    private static final String SECRET = "sk-ant-api03-ZZZtopsecret0987654321";

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b
            .timeToFirstToken(Duration.ofMillis(1))
            .interTokenDelay(Duration.ofMillis(1)));

    @Test
    void noResultFileHoldsAKeyPassedInTheSamplingParameters(@TempDir Path dir) throws IOException {
        Path out = dir.resolve("out");
        CliRun run = CliRun.of(server.env(), "token-benchmark", "--model", "sim", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "5", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "2", "--num-concurrent-requests", "1", "--no-client-warmup",
                "--additional-sampling-params",
                "{\"temperature\":0,\"extra_body\":{\"api_key\":\"" + SECRET + "\"}}",
                "--results-dir", out.toString());
        assertEquals(0, run.exitCode(), run::toString);
        List<Path> files;
        try (Stream<Path> walk = Files.walk(out)) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        assertTrue(files.stream().anyMatch(f -> f.getFileName().toString().endsWith("_summary.json")
                && !f.getFileName().toString().startsWith("llmperf4j")), files::toString);
        for (Path f : files) {
            String text = Files.readString(f);
            assertFalse(text.contains(SECRET), f + " holds the key");
        }
        assertFalse(run.toString().contains(SECRET), "console holds the key");
    }
}
