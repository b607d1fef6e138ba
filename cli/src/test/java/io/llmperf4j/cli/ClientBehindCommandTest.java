package io.llmperf4j.cli;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.engine.load.OpenLoopRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An uncapped open loop whose client falls behind its own schedule while the simulator answers at once, through the
 * real {@code token-benchmark} command: the pacer is made late by the runner's documented test seam
 * ({@link OpenLoopRunner#PACER_DELAY_PROPERTY}: 100 ms before every send, against arrivals 50 ms apart), so the sends
 * go out at about half the scheduled rate whatever the machine's load. From the intended sends the level falls
 * behind, from the actual sends it keeps up: the console's "Kept up:" line blames the client, the summary's
 * {@code kept_up} says {@code client_behind}, and BEHIND_SCHEDULE is not raised (SENT_LATE is).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClientBehindCommandTest {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(1))
            .interTokenDelay(Duration.ofMillis(1)));

    private static CliRun run(Path dir, String... more) {
        List<String> args = new java.util.ArrayList<>(List.of("token-benchmark", "--model", "m",
                "--mean-input-tokens", "40", "--stddev-input-tokens", "0", "--mean-output-tokens", "5",
                "--stddev-output-tokens", "0", "--max-num-completed-requests", "30", "--arrival", "constant",
                "--request-rate", "20", "--no-server-metrics", "--results-dir", dir.toString()));
        args.addAll(List.of(more));
        String before = System.getProperty(OpenLoopRunner.PACER_DELAY_PROPERTY);
        System.setProperty(OpenLoopRunner.PACER_DELAY_PROPERTY, "100");
        try {
            return CliRun.of(server.env(), args.toArray(String[]::new));
        } finally {
            if (before == null) System.clearProperty(OpenLoopRunner.PACER_DELAY_PROPERTY);
            else System.setProperty(OpenLoopRunner.PACER_DELAY_PROPERTY, before);
        }
    }

    @Test
    void theLineAndTheSummarysKeyBlameTheClient(@TempDir Path dir) throws Exception {
        CliRun run = run(dir);
        assertEquals(0, run.exitCode(), run::toString);
        String line = run.out().lines().filter(l -> l.startsWith("Kept up:")).findFirst().orElseThrow(
                () -> new AssertionError("no Kept up: line\n" + run));
        assertTrue(line.startsWith("Kept up: the client fell behind its schedule, not the service: it sent late "
                + "(send lag p90 "), line);
        assertTrue(line.contains("): from the intended sends its successes ended at "), line);
        assertTrue(line.contains(" of the scheduled rate, 95 % interval "), line);
        assertTrue(line.contains("; from the actual sends at "), line);
        assertTrue(line.endsWith(", at or above the threshold 95.0 % (SENT_LATE says how late)"), line);

        JsonNode summary = JSON.readTree(dir.resolve("m_40_5_llmperf4j_summary.json").toFile());
        assertEquals("client_behind", summary.path("kept_up").asText(), summary::toString);
        String warnings = summary.get("warnings").toString();
        assertFalse(warnings.contains("BEHIND_SCHEDULE"), warnings);
        assertTrue(warnings.contains("SENT_LATE"), warnings);
        assertFalse(run.out().contains("BEHIND_SCHEDULE"), run::toString);
    }

    /** Without the seam the same command keeps up: the key then says yes (the test's lateness is the seam's). */
    @Test
    void withoutTheSeamTheSameRunKeepsUp(@TempDir Path dir) throws Exception {
        CliRun run = CliRun.of(server.env(), "token-benchmark", "--model", "m", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "5", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "30", "--arrival", "constant", "--request-rate", "20",
                "--no-server-metrics", "--results-dir", dir.toString());
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode summary = JSON.readTree(dir.resolve("m_40_5_llmperf4j_summary.json").toFile());
        assertFalse(summary.has("kept_up") && summary.get("kept_up").asText().equals("client_behind"),
                summary::toString);
    }
}
