package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * compare as a CI gate on sides that are not what they seem, from real runs against a test server: a side with no
 * summary (the journal a SIGKILLed run leaves) is named, with the checks it could not have, and fails a gate unless
 * {@code --allow-incomplete}; a side's CLIENT_BOTTLENECK warning is passed on in its own words; a run of another
 * request count, and a run whose load came from a cluster, are listed as {@code differs:}; {@code error_rate>1%} from
 * a baseline of 0 gives its absolute form. (A SIGTERM-stopped side: {@link CompareStoppedRunTest}.)
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CompareGateTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SUMMARY = "m_40_10_llmperf4j_summary.json";

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(5))
            .interTokenDelay(Duration.ofMillis(2)));

    @TempDir
    static Path tmp;
    static Path six;
    static Path sixAgain;
    static Path eight;

    @BeforeAll
    static void runAll() {
        six = run("six", 6);
        sixAgain = run("six-again", 6);
        eight = run("eight", 8);
    }

    private static Path run(String name, int requests) {
        Path dir = tmp.resolve(name);
        CliRun run = CliRun.of(server.env(), "token-benchmark", "--model", "m", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "10", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", String.valueOf(requests), "--num-concurrent-requests", "2",
                "--no-client-warmup", "--results-dir", dir.toString());
        assertEquals(0, run.exitCode(), run::toString);
        withoutClientBottleneck(dir);
        return dir;
    }

    /**
     * The run's summary without a CLIENT_BOTTLENECK warning: a loaded machine makes these short runs raise it now and
     * then (the baseline's line then stood in every comparison), and the test that is about it puts it in itself.
     */
    private static void withoutClientBottleneck(Path dir) {
        try {
            ObjectNode summary = (ObjectNode) JSON.readTree(dir.resolve(SUMMARY).toFile());
            ArrayNode kept = JSON.createArrayNode();
            summary.withArray("warnings").forEach(w -> {
                if (!"CLIENT_BOTTLENECK".equals(w.path("code").asText())) kept.add(w);
            });
            summary.set("warnings", kept);
            JSON.writeValue(dir.resolve(SUMMARY).toFile(), summary);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A copy of a run's folder; {@code keep} says which of its files to keep. */
    private static Path copy(Path run, String name, java.util.function.Predicate<String> keep) throws IOException {
        Path dir = tmp.resolve(name);
        Files.createDirectories(dir);
        try (Stream<Path> files = Files.list(run)) {
            for (Path f : files.toList()) {
                if (keep.test(f.getFileName().toString())) Files.copy(f, dir.resolve(f.getFileName()));
            }
        }
        return dir;
    }

    @Test
    void aSideWithItsJournalAloneIsNamedAndFailsTheGateUnlessAllowed() throws IOException {
        // what a SIGKILLed run leaves: requests.jsonl, no summary (the QA's kill9: 87 of 400, exit 0, no word)
        Path journal = copy(eight, "journal-only", f -> f.equals("requests.jsonl"));
        String rules = "error_rate>0.5";
        CliRun gate = CliRun.of(Map.of(), "compare", six.toString(), journal.toString(), "--fail-if", rules);
        assertEquals(ExitCodes.THRESHOLD_FAILED, gate.exitCode(), gate::toString);
        assertTrue(gate.err().contains("compare: the candidate (" + journal + ") has no summary, only its records (a "
                + "run killed before it wrote its files, by SIGKILL or a crash, or a copy of its journal alone): "
                + "whether it ran to its end is unknown, so its latencies may leave out the requests that had run "
                + "longest, and its settings, planned request count and warnings could not be checked; it fails the "
                + "gate (exit 3) whatever the rules say: --allow-incomplete judges it by the rules"), gate::toString);
        assertTrue(gate.out().contains("  pass error_rate>0.5"), gate::toString);
        assertTrue(gate.out().endsWith("GATE FAILED: 1 side did not run to its end or cannot show it did (stderr says "
                + "which): a gate never passes on a run cut short, so this fails it (exit 3) as a crossed rule does; "
                + "compare complete runs, or give --allow-incomplete to judge it by the rules alone\n"), gate::toString);
        // the settings check could not be made: no differs line, though the planned counts differ (6 vs 8)
        assertFalse(gate.err().contains("differs:"), gate::toString);

        CliRun allowed = CliRun.of(Map.of(), "compare", six.toString(), journal.toString(), "--fail-if", rules,
                "--allow-incomplete");
        assertEquals(0, allowed.exitCode(), allowed::toString);
        assertTrue(allowed.err().contains("(judged by the rules anyway: --allow-incomplete)"), allowed::toString);

        CliRun noGate = CliRun.of(Map.of(), "compare", six.toString(), journal.toString());
        assertEquals(0, noGate.exitCode(), noGate::toString);
        assertTrue(noGate.err().contains("has no summary, only its records"), noGate::toString);
        assertFalse(noGate.err().contains("fails the gate"), noGate::toString);

        CliRun reversed = CliRun.of(Map.of(), "compare", journal.toString(), six.toString(), "--fail-if", rules);
        assertEquals(ExitCodes.THRESHOLD_FAILED, reversed.exitCode(), reversed::toString);
        assertTrue(reversed.err().contains("compare: the baseline (" + journal + ") has no summary"),
                reversed::toString);
    }

    @Test
    void twoCompleteRunsPassTheGateWithNoNotes() {
        CliRun run = CliRun.of(Map.of(), "compare", six.toString(), sixAgain.toString(), "--fail-if",
                "error_rate>0.5");
        assertEquals(0, run.exitCode(), run::toString);
        assertFalse(run.err().contains("compare: the "), run::toString);
        assertFalse(run.out().contains("GATE FAILED"), run::toString);
    }

    @Test
    void aSidesClientBottleneckWarningIsPassedOnInItsWords() throws IOException {
        // the warning as a busy client's run writes it in its summary (which runs raise it depends on the machine)
        Path busy = copy(sixAgain, "busy", f -> true);
        ObjectNode summary = (ObjectNode) JSON.readTree(busy.resolve(SUMMARY).toFile());
        String words = "The client's delays are a material part of this run's latencies: its event loops ran late";
        ((ArrayNode) summary.withArray("warnings")).addObject().put("code", "CLIENT_BOTTLENECK").put("message", words);
        JSON.writeValue(busy.resolve(SUMMARY).toFile(), summary);
        CliRun run = CliRun.of(Map.of(), "compare", six.toString(), busy.toString(), "--fail-if", "error_rate>0.5");
        assertEquals(0, run.exitCode(), "a warning is said, not a gate failure: " + run);
        assertTrue(run.err().contains("compare: the candidate (" + busy + ") warned that its client was its own "
                + "bottleneck, so its latencies include the client's delays: " + words), run::toString);
        assertFalse(run.err().contains("the baseline ("), run::toString);
    }

    @Test
    void anotherRequestCountAndAClusterLoadAreDifferences() throws IOException {
        CliRun counts = CliRun.of(Map.of(), "compare", six.toString(), eight.toString());
        assertEquals(0, counts.exitCode(), counts::toString);
        assertTrue(counts.err().contains("  differs: planned requests: 6 vs 8"), counts::toString);
        assertFalse(counts.err().contains("load generated by"), counts::toString);

        // the summary's distributed block as a cluster run writes it (two workers)
        Path cluster = copy(sixAgain, "cluster", f -> true);
        ObjectNode summary = (ObjectNode) JSON.readTree(cluster.resolve(SUMMARY).toFile());
        ObjectNode distributed = summary.putObject("distributed");
        distributed.put("cluster_name", "c");
        ArrayNode workers = distributed.putArray("workers");
        workers.addObject().put("id", "127.0.0.1:1");
        workers.addObject().put("id", "127.0.0.1:2");
        JSON.writeValue(cluster.resolve(SUMMARY).toFile(), summary);
        CliRun run = CliRun.of(Map.of(), "compare", six.toString(), cluster.toString());
        assertTrue(run.err().contains("  differs: load generated by: a single machine vs a cluster of 2 load "
                + "workers"), run::toString);
        assertFalse(run.err().contains("planned requests"), run::toString);
    }

    @Test
    void aRelativeErrorRateRuleFromZeroGivesItsAbsoluteForm() {
        CliRun run = CliRun.of(Map.of(), "compare", six.toString(), sixAgain.toString(), "--fail-if", "error_rate>1%");
        assertEquals(ExitCodes.THRESHOLD_FAILED, run.exitCode(), run::toString);
        assertTrue(run.out().contains("  NOT EVALUATED error_rate>1%: the baseline Error rate is 0, so a relative "
                + "change is undefined; use an absolute limit: error_rate>0.01 (a rise of 1 percentage point)"),
                run::toString);
    }

    @Test
    void aThroughputRuleSaysItHasNoInterval() {
        CliRun run = CliRun.of(Map.of(), "compare", six.toString(), sixAgain.toString(), "--fail-if",
                "output_throughput<-90%");
        assertTrue(run.out().contains("; this figure has no interval (one value per run, no spread to estimate noise "
                + "from): separate runs of an unchanged server move it by a few percent, so a verdict near the limit "
                + "may be noise; repeat runs (--iterations) for an interval"), run::toString);
        assertTrue(run.out().contains("none (one per run)"), run::toString);
    }
}
