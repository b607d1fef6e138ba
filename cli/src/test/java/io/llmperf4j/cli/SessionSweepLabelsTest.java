package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rate sweep of sessions (--turns) names each level in sessions/s in its sweep file's {@code levels[].label} and in
 * its verdict's warnings, as its {@code load_unit}, its table and its load line do: they said "rate 2 req/s" for a
 * level that started 2 sessions a second. Its levels are short (6 requests), so the verdict warns each of too few
 * successes. Against the simulator on 127.0.0.1.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionSweepLabelsTest {

    @Test
    void aSweepOfSessionsLabelsAndVerdictWarningsSaySessionsPerSecond(@TempDir Path dir) throws Exception {
        CliRun run = SessionSweepUnitTest.sweepOfSessions(dir);
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode sweep = RunFolder.sweep(dir);
        List<String> labels = new ArrayList<>();
        sweep.get("levels").forEach(l -> labels.add(l.get("label").asText()));
        assertEquals(List.of("rate 2 sessions/s", "rate 4 sessions/s"), labels, sweep::toString);

        JsonNode warnings = sweep.get("verdict").get("warnings");
        assertEquals(2, warnings.size(), sweep::toString);
        assertTrue(warnings.get(0).asText().startsWith("rate 2 sessions/s: only 6 successful requests (< 10)"),
                warnings::toString);
        assertTrue(warnings.get(1).asText().startsWith("rate 4 sessions/s: only 6 successful requests (< 10)"),
                warnings::toString);
        assertFalse(sweep.toString().contains(" req/s:") || run.out().contains("rate 2 req/s")
                || run.out().contains("rate 4 req/s"), run::toString);
    }
}
