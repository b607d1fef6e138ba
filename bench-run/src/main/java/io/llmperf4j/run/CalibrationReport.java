package io.llmperf4j.run;

import io.llmperf4j.model.disk.WholeFiles;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.model.ClientOverhead;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code calibrate}'s output: a table on stdout, and {@value #JSON_FILE} and {@value #CSV_FILE} (one row per
 * concurrency, times in ms, shares as fractions) in the results folder. A level with fewer requests than streams is
 * named by the requests it had in flight at most ("10 of 64", {@code max_in_flight} in the files), with a note.
 */
public final class CalibrationReport {

    public static final String JSON_FILE = "calibration.json";
    public static final String CSV_FILE = "calibration.csv";

    private static final String ROW = "%11s %9s %9s %9s %9s %9s %9s %9s %9s %8s %8s%n";
    private static final JsonMapper JSON = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();

    /** One concurrency's figures in report units. */
    record Row(int concurrency, int requests, int succeeded, int unmatched, long ttftErrorSamples,
               double ttftErrorP50Ms, double ttftErrorP99Ms, double ttftErrorMaxMs, long interTokenErrorSamples,
               double interTokenErrorP50Ms, double interTokenErrorP99Ms, double interTokenErrorMaxMs,
               Double eventLoopLagP50Ms, Double eventLoopLagP99Ms, Double ioBusyShareMax, Double processCpuShare,
               Long gcCount, Double gcPauseMs, int maxInFlight) {

        static Row of(Calibration.Level l) {
            ClientOverhead o = l.overhead();
            boolean lag = o != null && o.lagSamples() > 0;
            return new Row(l.concurrency(), l.requests(), l.succeeded(), l.unmatched(), l.ttftError().count(),
                    ms(l.ttftError().p50Nanos()), ms(l.ttftError().p99Nanos()), ms(l.ttftError().maxNanos()),
                    l.interTokenError().count(), ms(l.interTokenError().p50Nanos()),
                    ms(l.interTokenError().p99Nanos()), ms(l.interTokenError().maxNanos()),
                    lag ? ms(o.lagP50Nanos()) : null, lag ? ms(o.lagP99Nanos()) : null,
                    o == null ? null : finite(o.ioBusyShareMax()), o == null ? null : finite(o.processCpuShare()),
                    o == null ? null : o.gcCount(), o == null ? null : ms(o.gcPauseNanos()), l.maxInFlight());
        }
    }

    /** The JSON document. */
    record Document(String tool, Settings settings, String transport, int availableProcessors, List<Row> levels) {
    }

    /** The simulator's timing, in ms. */
    record Settings(double ttftMs, double interTokenMs, int outputTokens) {
    }

    private CalibrationReport() {
    }

    public static String header(Calibration.Settings s) {
        return String.format(Locale.ROOT, "llmperf4j calibrate: embedded simulator in this process, TTFT %s ms, %s ms "
                        + "between tokens, %d tokens per response (one per SSE event); %d cores%n",
                fmt(s.ttft().toNanos() / 1e6), fmt(s.interToken().toNanos() / 1e6), s.outputTokens(),
                Runtime.getRuntime().availableProcessors());
    }

    public static String table(List<Calibration.Level> levels) {
        StringBuilder out = new StringBuilder();
        out.append("Error floor (client arrival minus the server's own send time), ms; client overhead during the "
                + "level\n");
        out.append(String.format(Locale.ROOT, ROW, "concurrency", "ok/sent", "TTFT p50", "TTFT p99", "TTFT max",
                "ITL p50", "ITL p99", "loop p99", "I/O busy", "CPU", "GC ms"));
        for (Calibration.Level l : levels) {
            Row r = Row.of(l);
            // a level of fewer requests than streams is named by what it reached: "10 of 64"
            boolean starved = l.maxInFlight() < l.concurrency();
            out.append(String.format(Locale.ROOT, ROW, starved ? l.maxInFlight() + " of " + l.concurrency()
                            : Integer.toString(l.concurrency()), r.succeeded() + "/" + r.requests(),
                    fixed(r.ttftErrorP50Ms()), fixed(r.ttftErrorP99Ms()), fixed(r.ttftErrorMaxMs()),
                    fixed(r.interTokenErrorP50Ms()), fixed(r.interTokenErrorP99Ms()),
                    r.eventLoopLagP99Ms() == null ? "-" : fixed(r.eventLoopLagP99Ms()), percent(r.ioBusyShareMax()),
                    percent(r.processCpuShare()), r.gcPauseMs() == null ? "-" : String.format(Locale.ROOT, "%.1f",
                            r.gcPauseMs())));
            if (starved) {
                out.append(String.format(Locale.ROOT, "  (at most %d requests in flight, not %d: the level had %d "
                        + "requests; --requests %d or more, or 0, measures %d streams)%n", l.maxInFlight(),
                        l.concurrency(), l.requests(), l.concurrency(), l.concurrency()));
            }
            if (r.unmatched() > 0) {
                out.append(String.format(Locale.ROOT, "  (%d successful requests could not be paired with the "
                        + "server's send times and are left out)%n", r.unmatched()));
            }
        }
        return out.toString();
    }

    /**
     * Writes both files into {@code dir} (created if missing), each whole or absent ({@link WholeFiles#write});
     * returns them.
     */
    public static List<Path> write(Calibration.Settings s, List<Calibration.Level> levels, Path dir) throws IOException {
        return WholeFiles.write(dir, into -> writeInto(s, levels, into));
    }

    private static List<Path> writeInto(Calibration.Settings s, List<Calibration.Level> levels, Path dir)
            throws IOException {
        List<Row> rows = levels.stream().map(Row::of).toList();
        Document doc = new Document("llmperf4j " + ToolVersion.version(),
                new Settings(s.ttft().toNanos() / 1e6, s.interToken().toNanos() / 1e6, s.outputTokens()),
                levels.isEmpty() ? "" : levels.get(0).transport(), Runtime.getRuntime().availableProcessors(), rows);
        Path json = dir.resolve(JSON_FILE);
        Files.writeString(json, JSON.writeValueAsString(doc) + "\n", StandardCharsets.UTF_8);
        Path csv = dir.resolve(CSV_FILE);
        List<String> lines = new ArrayList<>();
        lines.add("concurrency,requests,succeeded,unmatched,ttft_error_samples,ttft_error_p50_ms,ttft_error_p99_ms,"
                + "ttft_error_max_ms,inter_token_error_samples,inter_token_error_p50_ms,inter_token_error_p99_ms,"
                + "inter_token_error_max_ms,event_loop_lag_p50_ms,event_loop_lag_p99_ms,io_busy_share_max,"
                + "process_cpu_share,gc_count,gc_pause_ms,max_in_flight");
        for (Row r : rows) {
            lines.add(String.join(",", List.of(Integer.toString(r.concurrency()), Integer.toString(r.requests()),
                    Integer.toString(r.succeeded()), Integer.toString(r.unmatched()),
                    Long.toString(r.ttftErrorSamples()), plain(r.ttftErrorP50Ms()), plain(r.ttftErrorP99Ms()),
                    plain(r.ttftErrorMaxMs()), Long.toString(r.interTokenErrorSamples()),
                    plain(r.interTokenErrorP50Ms()), plain(r.interTokenErrorP99Ms()), plain(r.interTokenErrorMaxMs()),
                    plain(r.eventLoopLagP50Ms()), plain(r.eventLoopLagP99Ms()), plain(r.ioBusyShareMax()),
                    plain(r.processCpuShare()), r.gcCount() == null ? "" : Long.toString(r.gcCount()),
                    plain(r.gcPauseMs()), Integer.toString(r.maxInFlight()))));
        }
        Files.write(csv, lines, StandardCharsets.UTF_8);
        return List.of(json, csv);
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }

    private static String fixed(double ms) {
        return String.format(Locale.ROOT, "%.3f", ms);
    }

    private static String percent(Double share) {
        return share == null ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * share);
    }

    private static String plain(Double v) {
        return v == null ? "" : java.math.BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }

    private static String fmt(double v) {
        return plain(v);
    }
}
