package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A capacity search prints its levels' own warnings (each level's summary's) after its answer, as a sweep does: one
 * line per code however many levels it fired at; under --quiet on stderr.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SearchLevelWarningsTest {

    @Test
    void eachLevelsWarningsAreOneLinePerCode(@TempDir Path tmp) {
        // levels of 5 requests: each level's summary warns FEW_SAMPLES
        String[] args = {"token-benchmark", "--model", "m", "--no-client-warmup", "--mean-input-tokens", "50",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "2", "--stddev-output-tokens", "0",
                "--slo", "ttft_p99<=10s", "--search", "concurrency", "--search-min", "1", "--search-max", "2",
                "--search-level-max", "5", "--search-min-samples", "1000", "--search-no-repeat", "--sleep-between", "0",
                "--results-dir", ""};
        CliRun run;
        CliRun quiet;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ZERO).build())) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k");
            args[args.length - 1] = tmp.resolve("a").toString();
            run = CliRun.of(env, args);
            args[args.length - 1] = tmp.resolve("b").toString();
            String[] withQuiet = java.util.Arrays.copyOf(args, args.length + 1);
            withQuiet[args.length] = "--quiet";
            quiet = CliRun.of(env, withQuiet);
        }
        assertEquals(0, run.exitCode(), run::toString);
        Pattern line = Pattern.compile("\\[FEW_SAMPLES\\] at concurrency 1, 2; concurrency 1: Only 5 successful "
                + "requests");
        assertTrue(Pattern.compile("\nwarning: " + line.pattern()).matcher(run.out()).find(), run::toString);
        assertEquals(1, run.out().split("\\[FEW_SAMPLES\\]", -1).length - 1, run::toString);
        assertEquals(0, quiet.exitCode(), quiet::toString);
        assertTrue(Pattern.compile("llmperf4j: warning: " + line.pattern()).matcher(quiet.err()).find(),
                quiet::toString);
    }
}
