package io.llmperf4j.report.summary;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The words of an {@link SloVerdictJson}, one for the console and the HTML page:
 *
 * <pre>
 * SLO: FAIL over 40 requests (95 % intervals; TTFT and E2E from the intended send)
 *   ttft_p99 52.1 ms &gt; 5 ms: missed (95 % CI 51.0-53.0 ms, resolved)
 *   e2e_p99 290.9 ms &lt;= 20000 ms: met (95 % CI 220.8 ms to unbounded, unresolved: judged by the estimate)
 *   error_rate 0.0 % &lt;= 1 %: met (95 % CI 0.0-8.8 %, unresolved: judged by the estimate)
 * </pre>
 */
public final class SloVerdictText {

    private SloVerdictText() {
    }

    /** The header line, without indentation or line end. */
    public static String header(SloVerdictJson v) {
        List<String> notes = new ArrayList<>();
        notes.add(Math.round(100 * v.confidence()) + " % intervals");
        if (v.requests() < v.minSamples()) {
            notes.add("fewer than " + v.minSamples() + " requests: no objective is resolved");
        }
        if (v.fromIntendedSend()) notes.add("TTFT and E2E from the intended send");
        return "SLO: " + (v.passed() ? "PASS" : "FAIL") + " over " + v.requests() + " requests ("
                + String.join("; ", notes) + ")";
    }

    /** One objective's line, without indentation or line end. */
    public static String line(SloVerdictJson.ObjectiveJson o) {
        boolean attainment = o.objective().contains("@");
        boolean ms = o.unit().equals("ms");
        String name = attainment ? o.objective().substring(0, o.objective().indexOf('@')) + " attained"
                : o.objective().substring(0, o.objective().indexOf("<="));
        String sign = attainment ? (o.passed() ? ">=" : "<") : (o.passed() ? "<=" : ">");
        String interval;
        if (o.estimate() == null) {
            interval = "no samples";
        } else {
            String unit = ms ? " ms" : " %";
            // an end the samples cannot give: too few requests for a percentile that far out
            String low = o.low() == null ? "unknown" : value(o.low(), ms) + unit;
            String high = o.high() == null ? "unbounded" : value(o.high(), ms) + unit;
            interval = o.low() != null && o.high() != null ? "95 % CI " + value(o.low(), ms) + "-"
                    + value(o.high(), ms) + unit : "95 % CI " + low + " to " + high;
        }
        String how = o.resolved() ? "resolved" : "unresolved: judged by the estimate";
        return name + " " + (o.estimate() == null ? "- " : value(o.estimate(), ms) + (ms ? " ms " : " % ")) + sign
                + " " + limit(o.limit(), ms) + (ms ? " ms" : " %") + ": " + (o.passed() ? "met" : "missed") + " ("
                + interval + ", " + how + ")";
    }

    /** The header and one indented line per objective, each ending with a line break. */
    public static String block(SloVerdictJson v) {
        StringBuilder out = new StringBuilder(header(v)).append('\n');
        for (SloVerdictJson.ObjectiveJson o : v.objectives()) out.append("  ").append(line(o)).append('\n');
        return out.toString();
    }

    private static String value(double v, boolean ms) {
        return String.format(Locale.ROOT, "%.1f", ms ? v : 100 * v);
    }

    private static String limit(double v, boolean ms) {
        return BigDecimal.valueOf(ms ? v : 100 * v).round(new MathContext(10)).stripTrailingZeros().toPlainString();
    }
}
