package io.llmperf4j.report.search;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A search on the console: the table of levels, then the verdict in one line. Each estimate and interval carries its
 * unit (ms, or a fraction as a percentage) as the verdict's line gives it, and an interval without an upper end says
 * "inf", as that line does.
 */
public final class SearchConsole {
    private SearchConsole() {
    }

    /** "unresolved: error_rate<=1%": the objectives that kept an estimate level from ending early. */
    public static String unresolvedClause(List<String> objectives) {
        return "unresolved: " + String.join(", ", objectives);
    }

    /**
     * "client behind: from the actual send ttft_p90 280.8 ms, send lag p99 166.0 ms": a level failed only by the
     * client's send lag, with its binding objective judged from the actual send.
     */
    public static String clientBehindClause(SearchDocument.Level l) {
        SearchDocument.Objective o = l.clientBehind();
        return "client behind: from the actual send " + o.objective() + " " + estimate(o) + ", send lag p99 "
                + SearchHtml.num(l.sendLagP99Ms()) + " ms";
    }

    /**
     * "289.7 ms", "13.33 %": an objective's estimate in its unit, as the verdict's line writes it; "inf" for a
     * percentile that failures (+∞ each) pushed to infinity (the JSON's null beside samples), "-" without samples.
     */
    public static String estimate(SearchDocument.Objective o) {
        return o.estimate() == null && o.samples() > 0 ? "inf" : value(o.estimate(), o);
    }

    /**
     * "[183.9 ms, inf]", "[5.31 %, 29.70 %]": the 95 % interval in the estimate's unit; "inf" where it has no upper
     * end yet (the JSON's null {@code high} beside samples), "-" where it has no lower end yet.
     */
    public static String interval(SearchDocument.Objective o) {
        String high = o.high() == null && o.samples() > 0 ? "inf" : value(o.high(), o);
        return "[" + value(o.low(), o) + ", " + high + "]";
    }

    private static String value(Double v, SearchDocument.Objective o) {
        if (v == null || Double.isNaN(v)) return "-";
        if (Double.isInfinite(v)) return "inf";
        return o.unit().equals("ms") ? String.format(Locale.ROOT, "%.1f ms", v)
                : String.format(Locale.ROOT, "%.2f %%", 100 * v);
    }

    /** "30/32": the requests judged and those that completed (the rates' count); "30" when the latter is unknown. */
    public static String judgedOfCompleted(SearchDocument.Level l) {
        return l.samples() + (l.requestsCompleted() == null ? "" : "/" + l.requestsCompleted());
    }

    /** "sent", or "started" for a search of sessions: its arrivals are session starts, as its levels' summaries say. */
    static String sentWord(SearchDocument doc) {
        return doc.unit().equals("sessions/s") ? "started" : "sent";
    }

    public static String render(SearchDocument doc) {
        StringBuilder out = new StringBuilder();
        out.append("Capacity search of ").append(doc.model()).append(" over ").append(doc.search()).append(": ")
                .append(String.join(", ", doc.objectives())).append('\n');
        boolean rate = doc.search().equals("rate");
        // a rate search of sessions starts sessions at its rate (sessions/s); its completions stay req/s (turns)
        String loadHeader = rate ? "rate (" + doc.unit() + ")" : "concurrency";
        int loadWidth = Math.max(12, loadHeader.length());
        // a rate level's label is the mean its arrivals were drawn at: the schedule drawn and the sends beside it
        String rates = rate ? String.format(Locale.ROOT, "  %9s  %8s", "scheduled", sentWord(doc)) : "";
        out.append(String.format(Locale.ROOT, "%3s  %-6s  %" + loadWidth
                + "s%s  %-16s  %-8s  %16s  %15s  %-24s  %12s  %s%n", "#", "phase", loadHeader, rates, "verdict", "stop",
                "judged/completed", "completed req/s", "binding objective", "estimate", "95% interval"));
        for (SearchDocument.Level l : doc.levels()) {
            SearchDocument.Objective b = l.objectives().stream().filter(o -> o.objective().equals(l.bindingObjective()))
                    .findFirst().orElse(l.objectives().get(0));
            // an estimate names what kept the level from ending early
            List<String> open = l.resolved() ? List.of() : l.objectives().stream().filter(o -> !o.resolved())
                    .map(SearchDocument.Objective::objective).toList();
            List<String> notes = new ArrayList<>();
            if (!open.isEmpty()) notes.add(unresolvedClause(open));
            if (l.clientBehind() != null) notes.add(clientBehindClause(l));
            if (!b.missClustering().isEmpty()) notes.add(b.objective() + ": " + b.missClustering());
            out.append(String.format(Locale.ROOT, "%3d  %-6s  %" + loadWidth
                            + "s%s  %-16s  %-8s  %16s  %15s  %-24s  %12s  %s%s%n",
                    l.index(), l.phase(), SearchHtml.num(l.load()), rate ? String.format(Locale.ROOT, "  %9s  %8s",
                            SearchHtml.num(l.scheduledS()), SearchHtml.num(l.sentS())) : "",
                    (l.passed() ? "pass" : "FAIL") + (l.resolved() ? "" : " (estimate)"), l.stop(),
                    judgedOfCompleted(l), SearchHtml.num(l.requestsS()), l.bindingObjective(), estimate(b),
                    interval(b), notes.isEmpty() ? "" : "  " + String.join("; ", notes)));
        }
        for (String w : doc.warnings()) out.append("warning: ").append(w).append('\n');
        out.append(doc.verdict()).append('\n');
        return out.toString();
    }
}
