package io.llmperf4j.cli;

import example.SweepExample;
import io.llmperf4j.engine.BenchmarkResult;
import io.llmperf4j.engine.LevelOutcome;
import io.llmperf4j.engine.load.LevelSummary;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Java API example of docs/java-api.md: it is this file's SweepExample, and it runs against the embedded server. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JavaApiExampleTest {
    private static final String BEGIN = "<!-- java-api-example:begin -->\n```java\n";
    private static final String END = "```\n<!-- java-api-example:end -->";

    @Test
    void theJavaApiPageShowsExactlyTheExampleThatIsTested() throws IOException {
        String readme = Files.readString(Path.of("..", "docs", "java-api.md"));
        int begin = readme.indexOf(BEGIN);
        int end = readme.indexOf(END);
        assertTrue(begin >= 0 && end > begin, "docs/java-api.md has the marked Java API example");
        String shown = readme.substring(begin + BEGIN.length(), end);
        String source = Files.readString(Path.of("src/test/java/example/SweepExample.java"));
        assertEquals(source.replaceFirst("package example;\n\n", ""), shown);
    }

    @Test
    void theExampleRunsAgainstTheEmbeddedServer() {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(3)).interTokenDelay(Duration.ofMillis(1)).build())) {
            BenchmarkResult result = SweepExample.run(server.baseUrl(), "");
            assertFalse(result.stopped());
            assertEquals(List.of(1.0, 4.0, 16.0), result.summaries().stream().map(LevelSummary::level).toList());
            for (LevelOutcome level : result.levels()) {
                assertEquals(20, level.summary().successes(), level::toString);
                assertEquals(2, level.run().orElseThrow().warmupRecords().size());
                assertTrue(level.summary().outputTokensPerSecond() > 0);
            }
            assertEquals(3, result.verdict().levels().size());
        }
    }
}
