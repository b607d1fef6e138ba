package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A level that sends for a time, not a count, sends every request a synthetic prompt of its own, as iterations do
 * (before, it cycled through the --max-num-completed-requests prompts, and from the second pass on a prefix cache
 * served them): an open loop's --duration, and a capacity search's closed-loop level limited by time. The first
 * prompts are a plain run's with the same --seed; a fixed workload still loops, and stderr says so. Checked on the
 * wire of a server that keeps every body.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DurationPromptsTest {

    /** The default --max-num-completed-requests: the prompts a plain run draws. */
    private static final int PROMPTS = 10;

    private static CliRun run(BodyRecordingServer server, Path dir, String... args) {
        List<String> all = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--no-client-warmup",
                "--mean-output-tokens", "2", "--stddev-output-tokens", "0", "--seed", "5", "--results-dir",
                dir.toString()));
        all.addAll(List.of(args));
        return CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                all.toArray(String[]::new));
    }

    private static final String[] SYNTHETIC = {"--mean-input-tokens", "200", "--stddev-input-tokens", "0"};

    /** A plain run's prompts with the same --seed, in send order (concurrency 1). */
    private static List<String> plainPrompts(BodyRecordingServer server, Path dir) {
        server.bodies.clear();
        CliRun plain = run(server, dir, concat(SYNTHETIC, "--num-concurrent-requests", "1"));
        assertEquals(0, plain.exitCode(), plain::toString);
        List<String> prompts = BodyRecordingServer.prompts(server.bodies());
        assertEquals(PROMPTS, prompts.size());
        return prompts;
    }

    @Test
    void anOpenLoopsDurationSendsAPromptOfItsOwnForEveryArrival(@TempDir Path tmp) throws IOException {
        List<String> sent;
        List<String> plain;
        CliRun run;
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            run = run(server, tmp.resolve("a"), concat(SYNTHETIC, "--request-rate", "40", "--arrival", "constant",
                    "--max-concurrency", "1", "--duration", "1"));
            sent = BodyRecordingServer.prompts(server.bodies());
            plain = plainPrompts(server, tmp.resolve("b"));
        }
        assertEquals(0, run.exitCode(), run::toString);
        // 40 arrivals over the 10 prompts it cycled through before, none twice
        assertEquals(40, sent.size());
        assertEquals(sent.size(), new HashSet<>(sent).size(), "a prompt was sent twice");
        assertEquals(plain, sent.subList(0, PROMPTS)); // at most one in flight: sent in arrival order
        assertFalse(run.err().contains("llmperf4j: --duration:"), run::toString);
        assertFalse(run.err().contains("llmperf4j: prompts:"), run::toString);
    }

    @Test
    void aCapacitySearchsClosedLoopLevelLimitedByTimeSendsAPromptOfItsOwnForEveryRequest(@TempDir Path tmp)
            throws IOException {
        List<String> sent;
        List<String> plain;
        CliRun run;
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            // one level, concurrency 1, for 2 s: never resolved early (far more samples needed than it gets); 2 s
            // send more than the 10 prompts even on a loaded machine (12 in 1 s at load average 12)
            run = run(server, tmp.resolve("a"), concat(SYNTHETIC, "--slo", "ttft_p99<=10s", "--search",
                    "concurrency", "--search-min", "1", "--search-max", "1", "--search-level-max", "2s",
                    "--search-min-samples", "100000", "--search-no-repeat"));
            sent = BodyRecordingServer.prompts(server.bodies());
            plain = plainPrompts(server, tmp.resolve("b"));
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(sent.size() > PROMPTS, "the level sent more than the workload holds: " + sent.size());
        assertEquals(sent.size(), new HashSet<>(sent).size(), "a prompt was sent twice");
        assertEquals(plain, sent.subList(0, PROMPTS));
        assertFalse(run.err().contains("llmperf4j: capacity search: the"), run::toString);
    }

    @Test
    void aFixedWorkloadLoopsForTheDurationAndSaysSo(@TempDir Path tmp) throws IOException {
        List<String> sent;
        CliRun run;
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            run = run(server, tmp.resolve("a"), "--prompt", "Tell me a story", "--max-tokens", "2",
                    "--request-rate", "40", "--arrival", "constant", "--duration", "0.5");
            sent = BodyRecordingServer.prompts(server.bodies());
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.err().contains("llmperf4j: --duration: --prompt is a fixed set of 10 requests, sent in a loop "
                + "for as long as each level runs: once a level has sent them all, the server's prefix cache can "
                + "serve every prompt again and TTFT times a cached prefill (synthetic prompts, the default "
                + "workload, are drawn fresh for every request)\n"), run::toString);
        assertEquals(20, sent.size());
        assertEquals(List.of("Tell me a story"), List.copyOf(new HashSet<>(sent)));
    }

    private static String[] concat(String[] first, String... more) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }
}
