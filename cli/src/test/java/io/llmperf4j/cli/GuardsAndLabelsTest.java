package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.run.ConcurrencyWarning;
import io.llmperf4j.run.LoadPlan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs whose shape cannot be kept are warned about or refused; an open loop's concurrency is named for what it is. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GuardsAndLabelsTest {
    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(5))
            .interTokenDelay(Duration.ofMillis(2)));

    private static CliRun bench(String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "8", "--stddev-output-tokens", "0",
                "--no-client-warmup", "--no-server-metrics"));
        args.addAll(List.of(extra));
        return CliRun.of(server.env(),
                args.toArray(String[]::new));
    }

    private static LoadPlan plan(String... flags) {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream());
        CliContext context = new CliContext(Map.of(), sink, sink);
        TokenBenchmarkCommand command = new TokenBenchmarkCommand(context);
        new CommandLine(command).parseArgs(flags);
        return TokenBenchmarkOptions.resolve(command, context).load();
    }

    /** A --header named like the API's key header replaces the key: said once, and the key itself never printed. */
    @Test
    void aHeaderThatReplacesTheKeyIsWarnedAbout() {
        CliRun run = bench("--max-num-completed-requests", "2", "--num-concurrent-requests", "1", "--results-dir", "",
                "--header", "Authorization: Bearer gateway-token-4711");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.err().contains("--header Authorization replaces the key from OPENAI_API_KEY in every request"),
                run::toString);
        assertFalse(run.err().contains("gateway-token-4711") || run.out().contains("gateway-token-4711"),
                run::toString);
        CliRun other = bench("--max-num-completed-requests", "2", "--num-concurrent-requests", "1", "--results-dir",
                "", "--header", "X-Tenant: a");
        assertFalse(other.err().contains("replaces the key"), other::toString);
    }

    @Test
    void concurrencyAboveTheRequestsIsWarnedAbout() {
        CliRun run = bench("--num-concurrent-requests", "5", "--max-num-completed-requests", "3");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.err().contains("llmperf4j: warning: concurrency 5 is above the 3 requests of the run: no more "
                + "than 3 requests are ever in flight"), run::toString);

        Optional<String> sweep = ConcurrencyWarning.concurrencyAboveRequests(plan("--concurrency-sweep", "1,4,8,64",
                "--max-num-completed-requests", "4"));
        assertTrue(sweep.orElseThrow().startsWith("llmperf4j: warning: concurrency 8, 64 are above the 4 requests "
                + "of each level"), sweep::toString);
        assertTrue(sweep.get().endsWith("give --max-num-completed-requests 64 or more (the guides advise at least 50 "
                + "per level)"), sweep::toString);
        assertEquals(Optional.empty(), ConcurrencyWarning.concurrencyAboveRequests(plan("--concurrency-sweep", "1,4",
                "--max-num-completed-requests", "4")));
        assertEquals(Optional.empty(), ConcurrencyWarning.concurrencyAboveRequests(plan("--request-rate", "5",
                "--max-concurrency", "50", "--max-num-completed-requests", "4")), "a cap is a limit, not a level");
    }

    @Test
    void aRequestCountThatCannotFitInTheHeapIsRefusedWithTheReason() {
        CliRun run = bench("--max-num-completed-requests", "2000000000");
        run.assertOneErrorLine(ExitCodes.USAGE, "--max-num-completed-requests 2000000000 cannot fit in memory");
        assertTrue(run.err().contains("but this JVM may use at most"), run::toString);
        Matcher fitting = Pattern.compile("give at most (\\d+)").matcher(run.err());
        assertTrue(fitting.find(), run::toString);
        long most = Long.parseLong(fitting.group(1));
        assertTrue(most > 1000 && most < 2_000_000_000L, run::toString);

        UsageException sweep = assertThrows(UsageException.class, () -> RunGuards.checkMemory(1_000_000, 5, 550, 150,
                1L << 30));
        assertTrue(sweep.getMessage().contains("5 records each"), sweep.getMessage());
        RunGuards.checkMemory(1000, 5, 550, 150, 1L << 30); // fits
    }

    @Test
    void anUncappedOpenLoopNamesItsPeakNeverZero(@TempDir Path dir) throws IOException {
        CliRun run = bench("--request-rate", "200", "--max-num-completed-requests", "6", "--results-dir",
                dir.toString());
        assertEquals(0, run.exitCode(), run::toString);
        int written = llmperfSummary(dir).get("num_concurrent_requests").asInt();
        assertTrue(written >= 1 && written <= 6, run::toString);
        assertTrue(run.out().contains("llmperf4j: m, unlimited concurrency (peak " + written + " in flight), 6 "
                + "requests"), run::toString);
        assertFalse(run.out().contains("concurrency 0"), run::toString);
    }

    @Test
    void aCappedOpenLoopNamesItsCap(@TempDir Path dir) throws IOException {
        CliRun run = bench("--request-rate", "200", "--max-concurrency", "2", "--max-num-completed-requests", "6",
                "--results-dir", dir.toString());
        assertEquals(0, run.exitCode(), run::toString);
        assertEquals(2, llmperfSummary(dir).get("num_concurrent_requests").asInt());
        assertTrue(run.out().contains("llmperf4j: m, max concurrency 2, 6 requests"), run::toString);
    }

    @Test
    void aResultsFolderUnderAFileSaysWhichFile(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("notes.txt"), "mine");
        bench("--max-num-completed-requests", "1", "--num-concurrent-requests", "1", "--results-dir",
                file.resolve("run1").toString())
                .assertOneErrorLine(ExitCodes.FAILURE, "cannot be written: " + file + " is a file, not a folder");
    }

    private static JsonNode llmperfSummary(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            Path summary = files.filter(f -> f.getFileName().toString().endsWith("_summary.json")
                    && !f.getFileName().toString().endsWith("_llmperf4j_summary.json")).findFirst().orElseThrow();
            return new ObjectMapper().readTree(summary.toFile());
        }
    }
}
