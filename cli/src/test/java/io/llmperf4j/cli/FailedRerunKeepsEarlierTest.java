package io.llmperf4j.cli;

import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An --overwrite rerun whose every request failed (exit 4; correctness and a capacity search exit 0) gives the folder
 * back to the earlier run, byte for byte, and keeps its own files in failed-run-&lt;time&gt;/, for --llm-api embeddings,
 * correctness, a sweep, a capacity search and iterations as for token-benchmark.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FailedRerunKeepsEarlierTest {
    private static final String KEY = "sk-test-failed-rerun";

    @Test
    void embeddingsRerunThatFailsEntirelyKeepsTheEarlierRun(@TempDir Path dir) throws Exception {
        List<String> args = List.of("token-benchmark", "--model", "sim", "--llm-api", "embeddings",
                "--mean-input-tokens", "50", "--stddev-input-tokens", "0", "--embedding-batch-size", "2",
                "--max-num-completed-requests", "4", "--num-concurrent-requests", "2", "--timeout", "60",
                "--no-client-warmup", "--results-dir", dir.toString());
        rerunFailsAndKeepsTheEarlierRun(dir, args, "embeddings_summary.json", 4);
    }

    @Test
    void correctnessRerunThatFailsEntirelyKeepsTheEarlierRun(@TempDir Path dir) throws Exception {
        List<String> args = List.of("correctness", "--model", "m", "--max-num-completed-requests", "4",
                "--num-concurrent-requests", "2", "--results-dir", dir.toString());
        // its exit stays 0 (errors are counted in its report, as llmperf does)
        rerunFailsAndKeepsTheEarlierRun(dir, args, ".json", 0);
    }

    @Test
    void capacitySearchRerunThatFailsEntirelyKeepsTheEarlierSearch(@TempDir Path dir) throws Exception {
        // every level's every request fails: the first level fails, nothing lower to try (one level run)
        List<String> args = List.of("token-benchmark", "--model", "sim", "--mean-input-tokens", "50",
                "--mean-output-tokens", "10", "--slo", "ttft_p90<=500ms", "--search", "concurrency",
                "--search-min", "1", "--search-max", "2", "--search-level-max", "4", "--sleep-between", "0",
                "--no-client-warmup",
                "--results-dir", dir.toString());
        // its exit stays 0: the search's verdict is its answer, failures included
        rerunFailsAndKeepsTheEarlierRun(dir, args, "sim_50_10_search.json", 0, null);
    }

    @Test
    void sweepRerunThatFailsEntirelyKeepsTheEarlierSweep(@TempDir Path dir) throws Exception {
        List<String> args = List.of("token-benchmark", "--model", "sim", "--mean-input-tokens", "50",
                "--mean-output-tokens", "10", "--concurrency-sweep", "1,2", "--max-num-completed-requests", "2",
                "--sleep-between", "0", "--no-client-warmup", "--results-dir", dir.toString());
        rerunFailsAndKeepsTheEarlierRun(dir, args, "sim_50_10_sweep.json", 4,
                "llmperf4j: the run failed: every request failed (4 of 4):");
    }

    @Test
    void iterationsRerunThatFailsEntirelyKeepsTheEarlierRun(@TempDir Path dir) throws Exception {
        // iterations of half a second: the earlier run's figures are no part of what is kept
        List<String> args = List.of("token-benchmark", "--model", "sim", "--mean-input-tokens", "50",
                "--mean-output-tokens", "10", "--num-concurrent-requests", "2", "--iterations", "2",
                "--warmup-iterations", "0", "--iteration-time", "0.5", "--no-client-warmup",
                "--results-dir", dir.toString());
        rerunFailsAndKeepsTheEarlierRun(dir, args, "sim_50_10_jmh.json", 4,
                "llmperf4j: the run failed: every request failed (");
    }

    private static void rerunFailsAndKeepsTheEarlierRun(Path dir, List<String> args, String resultSuffix,
                                                        int exitCode) throws Exception {
        rerunFailsAndKeepsTheEarlierRun(dir, args, resultSuffix, exitCode,
                exitCode == 4 ? "llmperf4j: the run failed: every request failed (4 of 4):" : null);
    }

    private static void rerunFailsAndKeepsTheEarlierRun(Path dir, List<String> args, String resultSuffix,
                                                        int exitCode, String failedLine)
            throws Exception {
        // the earlier run's server answers at once: its speed is no part of what is kept (correctness's answers are the
        // simulator's 256 tokens, 2.6 s each at its default 10 ms a token)
        try (SimulatedServer good = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ZERO).build())) {
            CliRun first = CliRun.of(env(good.baseUrl()), args.toArray(String[]::new));
            assertEquals(0, first.exitCode(), first::toString);
        }
        Map<String, String> earlier = files(dir);
        assertTrue(earlier.keySet().stream().anyMatch(f -> f.endsWith(resultSuffix)), earlier::toString);

        HttpServer failing = failingServer();
        try {
            List<String> rerun = new ArrayList<>(args);
            rerun.add("--overwrite");
            CliRun second = CliRun.of(env("http://127.0.0.1:" + failing.getAddress().getPort() + "/v1"),
                    rerun.toArray(String[]::new));
            assertEquals(exitCode, second.exitCode(), second::toString);
            if (failedLine != null) assertTrue(second.err().contains(failedLine), second::toString);
            List<Path> failedRuns = failedRuns(dir);
            assertEquals(1, failedRuns.size(), failedRuns::toString);
            Path failedRun = failedRuns.get(0);
            assertTrue(second.err().contains("llmperf4j: the earlier run's files are back in " + dir + " (a rerun "
                    + "whose every request failed replaces nothing); this run's files are in " + failedRun + "\n"),
                    second::toString);
            // each "Results written to" line names where the files went, a search's own line too
            List<String> written = second.err().lines().filter(l -> l.startsWith("Results written to ")).toList();
            assertFalse(written.isEmpty(), second::toString);
            written.forEach(l -> assertTrue(l.startsWith("Results written to " + failedRun.toAbsolutePath()),
                    second::toString));
            if (args.contains("--search")) {
                assertTrue(written.stream().anyMatch(l -> l.equals("Results written to " + failedRun.toAbsolutePath()
                        + ": sim_50_10_search.json, sim_50_10_search.csv, sim_50_10_search.html and a folder per level")),
                        written::toString);
            }
            // the earlier run's files, and only they, back where they were, byte for byte
            assertEquals(earlier, files(dir));
            // the failed run's own files, in its folder: its results and its list of them
            Map<String, String> failedFiles = files(failedRun);
            assertTrue(failedFiles.keySet().stream().anyMatch(f -> f.endsWith(resultSuffix)), failedFiles::toString);
            assertTrue(failedFiles.containsKey(".llmperf4j-files"), failedFiles::toString);
            assertFalse(Files.exists(dir.resolve(".llmperf4j-replaced")), "nothing left aside");
            assertFalse(Files.exists(dir.resolve(".llmperf4j.lock")), "the lock file is removed");
        } finally {
            failing.stop(0);
        }
    }

    private static Map<String, String> env(String baseUrl) {
        return Map.of("OPENAI_API_BASE", baseUrl, "OPENAI_API_KEY", KEY);
    }

    /** Answers every request 500, as a server that is down behind its gateway does. */
    private static HttpServer failingServer() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] body = "{\"error\":{\"message\":\"backend down\"}}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(500, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        return server;
    }

    /** Every file under {@code dir} but the failed runs' folders: its path there and its bytes (as hex). */
    private static Map<String, String> files(Path dir) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path f : walk.filter(Files::isRegularFile).toList()) {
                String name = dir.relativize(f).toString();
                if (name.startsWith("failed-run-")) continue;
                files.put(name, HexFormat.of().formatHex(Files.readAllBytes(f)));
            }
        }
        return files;
    }

    private static List<Path> failedRuns(Path dir) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(p -> p.getFileName().toString().startsWith("failed-run-")).sorted().toList();
        }
    }
}
