package io.llmperf4j.cli;

import io.llmperf4j.run.Calibration;
import io.llmperf4j.run.CalibrationReport;
import io.llmperf4j.run.ClientWarmup;
import io.llmperf4j.run.RunFailedException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/** {@code llmperf4j calibrate}: the tool's own error floor against the embedded simulator's send times. */
@Command(name = "calibrate",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        showDefaultValues = true,
        headerHeading = "",
        header = "Measures the client's own error floor against the embedded simulator.",
        description = {
            "Runs the embedded simulated server in this process with known timing, drives it over loopback with the",
            "real client at each concurrency, and sets every response's client arrival times against the server's",
            "own send times (same clock): TTFT error (first-content arrival minus its send) and inter-token error",
            "(|client gap - server gap|) at p50/p99, with the client's overhead (event-loop lag, I/O busy share,",
            "CPU, GC). No network beyond 127.0.0.1."
        })
final class CalibrateCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    DebugOption debugOption;

    @Option(names = {"--concurrency-sweep", "--concurrency"}, split = ",", defaultValue = "1,16,256",
            paramLabel = "N[,N...]",
            description = "Concurrent streams of each level, in turn (--concurrency: the same flag; one level is a "
                    + "sweep of one).")
    List<Integer> concurrencies;

    @Option(names = "--ttft-ms", paramLabel = "MS", defaultValue = "20",
            description = "The simulator's time to first token, in ms.")
    double ttftMillis;

    @Option(names = "--inter-token-ms", paramLabel = "MS", defaultValue = "5",
            description = "The simulator's delay between tokens, in ms.")
    double interTokenMillis;

    @Option(names = "--output-tokens", paramLabel = "N", defaultValue = "16",
            description = "Tokens per response, one per SSE event.")
    int outputTokens;

    @Option(names = "--requests", paramLabel = "N", defaultValue = "0",
            description = "Measured requests per level (0: 4 per stream, at least 100). Fewer than a level's "
                    + "concurrency keep at most that many in flight: the level's row is labelled so (\"10 of 64\").")
    int requests;

    @Option(names = {"--warmup-duration", "--warmup-s"}, defaultValue = "3", paramLabel = "SECONDS",
            description = "Seconds of load at each level before the measured requests, excluded from the figures, "
                    + "after the load that lets the JIT compilers settle (at most "
                    + Calibration.SETTLE_LIMIT_FACTOR + " times as long; 0: neither). Before the first level the "
                    + "client warms up as token-benchmark's does (a quick warm-up under 1 s of warmup, none at 0). "
                    + "--warmup-s is this command's earlier name.")
    double warmupSeconds;

    @Option(names = "--results-dir", paramLabel = "DIR",
            description = "Also write " + CalibrationReport.JSON_FILE + " and " + CalibrationReport.CSV_FILE
                    + " here.")
    Path resultsDir;

    /** A level warmup shorter than this gets the quick client warm-up. */
    private static final Duration QUICK_WARMUP_BELOW = Duration.ofSeconds(1);

    CalibrateCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        Calibration.Settings settings = settings();
        context.out().print(CalibrationReport.header(settings));
        context.out().flush();
        List<Calibration.Level> levels = Calibration.run(settings,
                () -> warmClient(settings.warmup()),
                c -> context.err().println("llmperf4j: calibrating at concurrency " + c + " ("
                        + settings.requestsAt(c) + " requests after "
                        + (settings.warmup().isZero() ? "no warmup"
                        : "the JIT compilers settle and " + fmtSeconds(settings.warmup()) + " of warmup")
                        + (settings.inFlightAt(c) < c ? "; at most " + settings.inFlightAt(c) + " in flight, fewer "
                        + "requests than streams: the row says " + settings.inFlightAt(c) + " of " + c : "") + ")"));
        context.out().print(CalibrationReport.table(levels));
        context.out().flush();
        if (resultsDir != null) {
            try {
                List<Path> files = CalibrationReport.write(settings, levels, resultsDir);
                context.err().println("Results written to " + resultsDir.toAbsolutePath() + ": " + files.stream()
                        .map(f -> f.getFileName().toString()).collect(Collectors.joining(", ")));
            } catch (IOException e) {
                throw new RunFailedException("could not write results to " + resultsDir + ": " + e.getMessage(), e);
            }
        }
        return ExitCodes.OK;
    }

    private Calibration.Settings settings() {
        if (concurrencies.isEmpty() || concurrencies.stream().anyMatch(c -> c == null || c < 1)) {
            throw new UsageException("--concurrency-sweep (" + concurrencies + ") must list numbers >= 1");
        }
        if (outputTokens < 2) {
            throw new UsageException("--output-tokens (" + outputTokens + ") must be >= 2, so there are gaps to compare");
        }
        if (!(warmupSeconds >= 0) || Double.isInfinite(warmupSeconds)) {
            throw new UsageException("--warmup-duration (" + warmupSeconds + ") must be >= 0");
        }
        if (requests < 0) {
            throw new UsageException("--requests (" + requests + ") must be >= 0");
        }
        return new Calibration.Settings(List.copyOf(concurrencies), millis(ttftMillis, "--ttft-ms"),
                millis(interTokenMillis, "--inter-token-ms"), outputTokens, requests,
                millis(warmupSeconds * 1000, "--warmup-duration"));
    }

    /**
     * The token benchmark's client warm-up, before the first level. A level's own settling load runs at the level's
     * concurrency, and at 1 stream (10 requests a second) that never took the per-request path to C2's 5,000 calls:
     * each request's start stayed interpreted and the 1-stream TTFT error carried it (0.23 ms p50 against an
     * inter-token error of 0.015). Under a second of warmup asks for a quick run, so it gets the quick warm-up; none
     * asks for no warm-up at all.
     */
    private void warmClient(Duration warmup) {
        if (warmup.isZero()) return;
        ClientWarmup.Budget budget = warmup.compareTo(QUICK_WARMUP_BELOW) < 0 ? ClientWarmup.Budget.QUICK
                : ClientWarmup.Budget.FULL;
        ClientWarmup.run(null, budget).flatMap(ClientWarmup.Outcome::notice).ifPresent(context.err()::println);
    }

    private static String fmtSeconds(Duration d) {
        return java.math.BigDecimal.valueOf(d.toMillis(), 3).stripTrailingZeros().toPlainString() + " s";
    }

    private static Duration millis(double value, String option) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new UsageException(option + " (" + value + ") must be >= 0");
        }
        return Duration.ofNanos(Math.round(value * 1_000_000.0));
    }
}
