package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * compare reads a run's throughput over the run's own window, so a run compared with itself shows the figures of
 * its own console, JSON and HTML (the QA's: 156.94 tok/s over 4.894 s in compare, 156.59 over 4.905 s in the run).
 */
class CompareRunWindowTest {

    @Test
    void aRunComparedWithItselfShowsItsOwnThroughputAndWindow(@TempDir Path tmp) throws IOException {
        Path dir = tmp.resolve("run");
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(4)).build())) {
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    "token-benchmark", "--model", "m", "--max-num-completed-requests", "12",
                    "--num-concurrent-requests", "2", "--mean-output-tokens", "10", "--stddev-output-tokens", "0",
                    "--no-client-warmup", "--results-dir", dir.toString());
            assertEquals(0, run.exitCode(), run::toString);
        }
        JsonNode summary;
        try (Stream<Path> files = Files.list(dir)) {
            Path file = files.filter(p -> p.getFileName().toString().endsWith("_llmperf4j_summary.json"))
                    .findFirst().orElseThrow();
            summary = new ObjectMapper().readTree(file.toFile());
        }
        double tokensPerSecond = summary.path("throughput").path("output_tokens_per_s").asDouble();
        double requestsPerSecond = summary.path("throughput").path("requests_per_s").asDouble();
        double seconds = summary.path("run").path("duration_s").asDouble();

        CliRun compare = CliRun.of(Map.of(), "compare", dir.toString(), dir.toString());
        assertEquals(0, compare.exitCode(), compare::toString);
        assertTrue(compare.out().contains(String.format(Locale.ROOT, "window %.3f s", seconds)), compare::toString);
        assertEquals(String.format(Locale.ROOT, "%.3f", tokensPerSecond), value(compare.out(), "Output throughput"));
        assertEquals(String.format(Locale.ROOT, "%.3f", requestsPerSecond), value(compare.out(), "Request throughput"));
    }

    /** The baseline value of a run-level row ("Output throughput   value   156.587   156.587 ..."). */
    private static String value(String out, String row) {
        Matcher m = Pattern.compile("(?m)^" + row + "\\s+value\\s+(\\S+)\\s").matcher(out);
        assertTrue(m.find(), () -> row + " not in:\n" + out);
        return m.group(1);
    }
}
