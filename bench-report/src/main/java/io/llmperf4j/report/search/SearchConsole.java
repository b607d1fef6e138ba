package io.llmperf4j.report.search;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A search on the console: the table of levels, then the verdict in one line. */
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
        return "client behind: from the actual send " + o.objective() + " " + SearchHtml.num(o.estimate())
                + (o.unit().equals("ms") ? " ms" : "") + ", send lag p99 " + SearchHtml.num(l.sendLagP99Ms()) + " ms";
    }

    public static String render(SearchDocument doc) {
        StringBuilder out = new StringBuilder();
        out.append("Capacity search of ").append(doc.model()).append(" over ").append(doc.search()).append(": ")
                .append(String.join(", ", doc.objectives())).append('\n');
        boolean rate = doc.unit().equals("req/s");
        String loadHeader = rate ? "rate (req/s)" : "concurrency";
        // a rate level's label is the mean its arrivals were drawn at: the schedule drawn and the sends beside it
        String rates = rate ? String.format(Locale.ROOT, "  %9s  %8s", "scheduled", "sent") : "";
        out.append(String.format(Locale.ROOT, "%3s  %-6s  %12s%s  %-16s  %-8s  %8s  %8s  %-24s  %10s  %s%n", "#",
                "phase", loadHeader, rates, "verdict", "stop", "requests", "req/s", "binding objective", "estimate",
                "95% interval"));
        for (SearchDocument.Level l : doc.levels()) {
            SearchDocument.Objective b = l.objectives().stream().filter(o -> o.objective().equals(l.bindingObjective()))
                    .findFirst().orElse(l.objectives().get(0));
            // an estimate names what kept the level from ending early
            List<String> open = l.resolved() ? List.of() : l.objectives().stream().filter(o -> !o.resolved())
                    .map(SearchDocument.Objective::objective).toList();
            List<String> notes = new ArrayList<>();
            if (!open.isEmpty()) notes.add(unresolvedClause(open));
            if (l.clientBehind() != null) notes.add(clientBehindClause(l));
            out.append(String.format(Locale.ROOT, "%3d  %-6s  %12s%s  %-16s  %-8s  %8d  %8s  %-24s  %10s  [%s, %s]%s%n",
                    l.index(), l.phase(), SearchHtml.num(l.load()), rate ? String.format(Locale.ROOT, "  %9s  %8s",
                            SearchHtml.num(l.scheduledS()), SearchHtml.num(l.sentS())) : "",
                    (l.passed() ? "pass" : "FAIL") + (l.resolved() ? "" : " (estimate)"), l.stop(), l.samples(),
                    SearchHtml.num(l.requestsS()), l.bindingObjective(), SearchHtml.num(b.estimate()),
                    SearchHtml.num(b.low()), SearchHtml.num(b.high()), notes.isEmpty() ? "" : "  "
                            + String.join("; ", notes)));
        }
        for (String w : doc.warnings()) out.append("warning: ").append(w).append('\n');
        out.append(doc.verdict()).append('\n');
        return out.toString();
    }
}
