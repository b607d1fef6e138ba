package io.llmperf4j.report.output;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.llmperf4j.report.search.LevelSlo;
import io.llmperf4j.report.search.SweepSloVerdict;
import io.llmperf4j.report.summary.SummaryDocument;
import io.llmperf4j.servermetrics.summary.ServerLatency;
import io.llmperf4j.servermetrics.summary.ServerSideSummarizer;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;
import org.apache.commons.csv.CSVPrinter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A sweep's own files: {@code <base>_sweep.json} (the plan, the rules, the verdict and one object per level that
 * ran, with its warnings; with {@code --slo} objectives, each level's verdict and the sweep's answer) and
 * {@code <base>_sweep.csv} (one row per level).
 */
public final class SweepFiles {
    public static final String SCHEMA = "llmperf4j.sweep/1";

    /** The columns of {@code <base>_sweep.csv}, in order. */
    public static final List<String> COLUMNS = List.of("level", "load_unit", "successes", "total", "failures",
            "failure_rate", "output_tok_s", "requests_s", "ttft_p50_ms", "ttft_p90_ms", "e2e_p50_ms", "e2e_p90_ms",
            "aborted", "saturation_point", "ttft_red_line", "first_failing", "few_samples", "throughput_gain",
            "ttft_p90_ratio", "slo", "good_requests_per_s", "good_fraction", "achieved_share",
            "achieved_share_low", "achieved_share_high", "kept_up", "held_output_tok_s", "server_generation_tok_s",
            "server_ttft_p50_ms", "server_peak_running", "server_peak_waiting", "server_prefix_cache_hit_rate",
            "server_counters_whole_window", "server_counters_reset");

    /**
     * {@code <base>_sweep.json}. {@code loadUnit} (and each level's): "concurrency", "req/s", or "sessions/s" for a
     * rate sweep of sessions (--turns), whose levels start sessions (its {@code requestsS} still counts requests).
     *
     * @param slo the sweep's answer to its {@code --slo} objectives; absent without objectives
     */
    public record Document(String schema, String model, String levelName, String loadUnit, List<Double> plannedLevels,
                           String load, String warmup, Rules rules, Verdict verdict, boolean stopped,
                           List<Level> levels, @JsonInclude(JsonInclude.Include.NON_NULL) SweepSloVerdict slo) {

        /** A sweep without {@code --slo} objectives. */
        public Document(String schema, String model, String levelName, String loadUnit, List<Double> plannedLevels,
                        String load, String warmup, Rules rules, Verdict verdict, boolean stopped, List<Level> levels) {
            this(schema, model, levelName, loadUnit, plannedLevels, load, warmup, rules, verdict, stopped, levels,
                    null);
        }
    }

    /** The verdict's thresholds. */
    public record Rules(double saturationGainPercent, double ttftJumpFactor, int minSuccessfulSamples) {
    }

    /**
     * The verdict: levels where saturation, the TTFT red line and the first failures were seen, in words too.
     *
     * @param kneeLevel the knee: the last level that still grew (closed loop) or kept up (open loop) before the
     *                  saturation point, where to run; absent without one
     */
    public record Verdict(Double saturationLevel, Double ttftRedLineLevel, Double firstFailingLevel,
                          List<String> lines, List<String> warnings,
                          @JsonInclude(JsonInclude.Include.NON_NULL) Double kneeLevel) {

        /** A verdict without a knee (a sweep file written before it was kept). */
        public Verdict(Double saturationLevel, Double ttftRedLineLevel, Double firstFailingLevel, List<String> lines,
                       List<String> warnings) {
            this(saturationLevel, ttftRedLineLevel, firstFailingLevel, lines, warnings, null);
        }
    }

    /**
     * One level that ran.
     *
     * @param goodRequestsPerS its summary's {@code goodput.good_requests_per_s}: requests meeting the {@code --slo}
     *                 latency bounds per second; null when goodput was not computed (no TTFT, TPOT or E2E bound)
     * @param goodFraction its summary's {@code goodput.good_fraction}; null when goodput was not computed
     * @param slo      its {@code --slo} verdict (its summary's, in a word; not judged when aborted); absent without
     *                 objectives
     * @param warnings its summary's warnings (code and message, as in its {@code _llmperf4j_summary.json}; empty
     *                 when none); absent for a level without a summary (iterations, a level that recorded nothing)
     * @param achievedShare an open loop's share of its offer served, 1 / the slope of its successes' ends against
     *                 their intended sends (1 = kept up; until the slope, its completion rate over its scheduled rate,
     *                 (n − 1) / span each), the share the verdict's rule compares with
     *                 {@code 1 − saturation_gain_percent / 100}; absent for a closed loop, a level the verdict does not
     *                 judge and one with too few successes to fit
     * @param achievedShareLow  its 95 % interval's lower end; absent where {@code achievedShare} is
     * @param achievedShareHigh its upper end; absent where {@code achievedShare} is, and when unbounded
     * @param keptUp   what the interval says against that threshold: {@code yes} (all of it at or above), {@code no}
     *                 (all of it below: the level fell behind, the saturation rule), {@code cannot_tell} (it straddles
     *                 the threshold, or too few successes to fit: too short to tell); absent for a closed loop and a
     *                 level not judged
     * @param heldOutputTokS a closed loop's output tok/s while it held its concurrency, before its drain (tokens
     *                 delivered from its c-th send, when c requests were first in flight, until the first end no
     *                 send replaced, over that window): what the saturation rule compares; absent for an open
     *                 loop, sessions and answers not streamed
     * @param server   its summary's {@code server} block, the same object (the server's own figures from its
     *                 {@code /metrics} over the level's window); null when the server's metrics were not scraped
     */
    public record Level(double level, String loadUnit, String label, int successes, int total,
                        int failures, Double failureRate, Double outputTokS, Double requestsS,
                        Double goodRequestsPerS, Double goodFraction, Double ttftP50Ms,
                        Double ttftP90Ms, Double e2eP50Ms, Double e2eP90Ms, boolean aborted, boolean saturationPoint,
                        boolean ttftRedLine, boolean firstFailing, boolean fewSamples, Double throughputGain,
                        Double ttftP90Ratio, String resultsDir, @JsonInclude(JsonInclude.Include.NON_NULL) LevelSlo slo,
                        @JsonInclude(JsonInclude.Include.NON_NULL) List<SummaryDocument.WarningJson> warnings,
                        @JsonInclude(JsonInclude.Include.NON_NULL) Double achievedShare,
                        @JsonInclude(JsonInclude.Include.NON_NULL) Double achievedShareLow,
                        @JsonInclude(JsonInclude.Include.NON_NULL) Double achievedShareHigh,
                        @JsonInclude(JsonInclude.Include.NON_NULL) String keptUp,
                        @JsonInclude(JsonInclude.Include.NON_NULL) Double heldOutputTokS,
                        ServerSideSummary server) {

        /** A level without the server's figures (not scraped, or a sweep file written before they were kept). */
        public Level(double level, String loadUnit, String label, int successes, int total,
                     int failures, Double failureRate, Double outputTokS, Double requestsS,
                     Double goodRequestsPerS, Double goodFraction, Double ttftP50Ms,
                     Double ttftP90Ms, Double e2eP50Ms, Double e2eP90Ms, boolean aborted, boolean saturationPoint,
                     boolean ttftRedLine, boolean firstFailing, boolean fewSamples, Double throughputGain,
                     Double ttftP90Ratio, String resultsDir, LevelSlo slo,
                     List<SummaryDocument.WarningJson> warnings, Double achievedShare, Double achievedShareLow,
                     Double achievedShareHigh, String keptUp, Double heldOutputTokS) {
            this(level, loadUnit, label, successes, total, failures, failureRate, outputTokS, requestsS,
                    goodRequestsPerS, goodFraction, ttftP50Ms, ttftP90Ms, e2eP50Ms, e2eP90Ms, aborted, saturationPoint,
                    ttftRedLine, firstFailing, fewSamples, throughputGain, ttftP90Ratio, resultsDir, slo, warnings,
                    achievedShare, achievedShareLow, achievedShareHigh, keptUp, heldOutputTokS, null);
        }

        /** A level without its share's interval (a sweep file written before it was kept). */
        public Level(double level, String loadUnit, String label, int successes, int total,
                     int failures, Double failureRate, Double outputTokS, Double requestsS,
                     Double goodRequestsPerS, Double goodFraction, Double ttftP50Ms,
                     Double ttftP90Ms, Double e2eP50Ms, Double e2eP90Ms, boolean aborted, boolean saturationPoint,
                     boolean ttftRedLine, boolean firstFailing, boolean fewSamples, Double throughputGain,
                     Double ttftP90Ratio, String resultsDir, LevelSlo slo,
                     List<SummaryDocument.WarningJson> warnings, Double achievedShare) {
            this(level, loadUnit, label, successes, total, failures, failureRate, outputTokS, requestsS,
                    goodRequestsPerS, goodFraction, ttftP50Ms, ttftP90Ms, e2eP50Ms, e2eP90Ms, aborted, saturationPoint,
                    ttftRedLine, firstFailing, fewSamples, throughputGain, ttftP90Ratio, resultsDir, slo, warnings,
                    achievedShare, null, null, null, null);
        }

        /** A level without its achieved share (a closed loop, or a sweep file written before it was kept). */
        public Level(double level, String loadUnit, String label, int successes, int total,
                     int failures, Double failureRate, Double outputTokS, Double requestsS,
                     Double goodRequestsPerS, Double goodFraction, Double ttftP50Ms,
                     Double ttftP90Ms, Double e2eP50Ms, Double e2eP90Ms, boolean aborted, boolean saturationPoint,
                     boolean ttftRedLine, boolean firstFailing, boolean fewSamples, Double throughputGain,
                     Double ttftP90Ratio, String resultsDir, LevelSlo slo,
                     List<SummaryDocument.WarningJson> warnings) {
            this(level, loadUnit, label, successes, total, failures, failureRate, outputTokS, requestsS,
                    goodRequestsPerS, goodFraction, ttftP50Ms, ttftP90Ms, e2eP50Ms, e2eP90Ms, aborted, saturationPoint,
                    ttftRedLine, firstFailing, fewSamples, throughputGain, ttftP90Ratio, resultsDir, slo, warnings,
                    (Double) null);
        }

        /** A level without goodput (no {@code --slo} latency bound, or a sweep file written before it was kept). */
        public Level(double level, String loadUnit, String label, int successes, int total, int failures,
                     Double failureRate, Double outputTokS, Double requestsS, Double ttftP50Ms, Double ttftP90Ms,
                     Double e2eP50Ms, Double e2eP90Ms, boolean aborted, boolean saturationPoint, boolean ttftRedLine,
                     boolean firstFailing, boolean fewSamples, Double throughputGain, Double ttftP90Ratio,
                     String resultsDir, LevelSlo slo, List<SummaryDocument.WarningJson> warnings) {
            this(level, loadUnit, label, successes, total, failures, failureRate, outputTokS, requestsS, null, null,
                    ttftP50Ms, ttftP90Ms, e2eP50Ms, e2eP90Ms, aborted, saturationPoint, ttftRedLine, firstFailing,
                    fewSamples, throughputGain, ttftP90Ratio, resultsDir, slo, warnings);
        }

        /** A level without its warnings (a sweep file written before they were kept). */
        public Level(double level, String loadUnit, String label, int successes, int total, int failures,
                     Double failureRate, Double outputTokS, Double requestsS, Double ttftP50Ms, Double ttftP90Ms,
                     Double e2eP50Ms, Double e2eP90Ms, boolean aborted, boolean saturationPoint, boolean ttftRedLine,
                     boolean firstFailing, boolean fewSamples, Double throughputGain, Double ttftP90Ratio,
                     String resultsDir, LevelSlo slo) {
            this(level, loadUnit, label, successes, total, failures, failureRate, outputTokS, requestsS, ttftP50Ms,
                    ttftP90Ms, e2eP50Ms, e2eP90Ms, aborted, saturationPoint, ttftRedLine, firstFailing, fewSamples,
                    throughputGain, ttftP90Ratio, resultsDir, slo, null);
        }

        /** A level without an {@code --slo} verdict. */
        public Level(double level, String loadUnit, String label, int successes, int total, int failures,
                     Double failureRate, Double outputTokS, Double requestsS, Double ttftP50Ms, Double ttftP90Ms,
                     Double e2eP50Ms, Double e2eP90Ms, boolean aborted, boolean saturationPoint, boolean ttftRedLine,
                     boolean firstFailing, boolean fewSamples, Double throughputGain, Double ttftP90Ratio,
                     String resultsDir) {
            this(level, loadUnit, label, successes, total, failures, failureRate, outputTokS, requestsS, ttftP50Ms,
                    ttftP90Ms, e2eP50Ms, e2eP90Ms, aborted, saturationPoint, ttftRedLine, firstFailing, fewSamples,
                    throughputGain, ttftP90Ratio, resultsDir, null, null);
        }
    }

    /** The JSON file's name ends with this: {@code <base>_sweep.json}. */
    public static final String JSON_SUFFIX = "_sweep.json";

    private SweepFiles() {
    }

    /**
     * Reads {@code <base>_sweep.json} back (as written by {@link #write}).
     *
     * @throws IOException naming the file when it cannot be read or is not a sweep file of schema {@value #SCHEMA}
     */
    public static Document read(Path json) throws IOException {
        Document doc = OutputFormat.readJson(json, Document.class);
        if (!SCHEMA.equals(doc.schema())) {
            throw new IOException(json + " is not a llmperf4j sweep file: its \"schema\" is '" + doc.schema()
                    + "', expected '" + SCHEMA + "'");
        }
        if (doc.levels() == null || doc.verdict() == null) {
            throw new IOException(json + " has no levels or no verdict: it is not a complete sweep file");
        }
        return doc;
    }

    /**
     * The CSV's {@code slo} cell: the status as the JSON says it ({@code met}, {@code missed}, {@code not_judged}),
     * " (unresolved)" after it as the console's and the page's tables say it when the verdict rests on estimates.
     */
    private static String slo(LevelSlo slo) {
        if (slo == null) return "";
        return slo.judged() && Boolean.FALSE.equals(slo.resolved()) ? slo.status() + " (unresolved)" : slo.status();
    }

    private static Double serverGeneration(ServerSideSummary server) {
        return server == null ? null : server.generationTokensPerS();
    }

    /** The server's TTFT median estimate in ms (its histogram's, in seconds, × 1000); null when not served. */
    private static Double serverTtftP50Ms(ServerSideSummary server) {
        ServerLatency ttft = server == null ? null : server.ttft();
        return ttft == null || ttft.p50S() == null ? null : ttft.p50S() * 1000;
    }

    /**
     * {@code server_counters_whole_window}: {@code false} when the counters cover less than the window where the
     * client saw tokens or ends (the console's "counters over 2.49 of the 2.86 s window"), {@code true} otherwise;
     * empty when not scraped or no two scrapes bracket the window (no counted span at all).
     */
    private static String countersWholeWindow(ServerSideSummary server) {
        if (server == null || server.countedFromS() == null || server.countedToS() == null) return "";
        return String.valueOf(!server.countersPartial(ServerSideSummarizer.EDGE_SLACK_NANOS / 1e9));
    }

    /**
     * {@code server_counters_reset}: {@code true} when a counter went back during the level (the server restarted or
     * reset its metrics: the counts are a lower bound, the JSON's {@code server.counters_reset}); empty when not
     * scraped or no two scrapes bracket the window.
     */
    private static String countersReset(ServerSideSummary server) {
        if (server == null || server.countedFromS() == null) return "";
        return String.valueOf(server.countersReset());
    }

    /** Writes {@code <base>_sweep.json} and {@code <base>_sweep.csv} into {@code dir}; returns both. */
    public static List<Path> write(Path dir, String base, Document doc) throws IOException {
        Files.createDirectories(dir);
        Path json = dir.resolve(base + "_sweep.json");
        OutputFormat.writeJson(doc, json);
        Path csv = dir.resolve(base + "_sweep.csv");
        try (CSVPrinter printer = OutputFormat.csv(csv, COLUMNS)) {
            for (Level l : doc.levels()) {
                printer.printRecord(OutputFormat.level(l.level()), l.loadUnit(), l.successes(), l.total(), l.failures(),
                        OutputFormat.cell(l.failureRate()), OutputFormat.cell(l.outputTokS()),
                        OutputFormat.cell(l.requestsS()), OutputFormat.cell(l.ttftP50Ms()),
                        OutputFormat.cell(l.ttftP90Ms()), OutputFormat.cell(l.e2eP50Ms()),
                        OutputFormat.cell(l.e2eP90Ms()), l.aborted(), l.saturationPoint(), l.ttftRedLine(),
                        l.firstFailing(), l.fewSamples(), OutputFormat.cell(l.throughputGain()),
                        OutputFormat.cell(l.ttftP90Ratio()), slo(l.slo()),
                        OutputFormat.cell(l.goodRequestsPerS()), OutputFormat.cell(l.goodFraction()),
                        OutputFormat.cell(l.achievedShare()), OutputFormat.cell(l.achievedShareLow()),
                        OutputFormat.cell(l.achievedShareHigh()), l.keptUp() == null ? "" : l.keptUp(),
                        OutputFormat.cell(l.heldOutputTokS()), OutputFormat.cell(serverGeneration(l.server())),
                        OutputFormat.cell(serverTtftP50Ms(l.server())),
                        OutputFormat.cell(l.server() == null ? null : l.server().peakRequestsRunning()),
                        OutputFormat.cell(l.server() == null ? null : l.server().peakRequestsWaiting()),
                        OutputFormat.cell(l.server() == null ? null : l.server().prefixCacheHitRate()),
                        countersWholeWindow(l.server()), countersReset(l.server()));
            }
        }
        return List.of(json, csv);
    }
}
