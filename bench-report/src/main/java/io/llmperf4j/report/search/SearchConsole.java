package io.llmperf4j.report.search;

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

    public static String render(SearchDocument doc) {
        StringBuilder out = new StringBuilder();
        out.append("Capacity search of ").append(doc.model()).append(" over ").append(doc.search()).append(": ")
                .append(String.join(", ", doc.objectives())).append('\n');
        String loadHeader = doc.unit().equals("req/s") ? "rate (req/s)" : "concurrency";
        out.append(String.format(Locale.ROOT, "%3s  %-6s  %12s  %-16s  %-8s  %8s  %8s  %-24s  %10s  %s%n", "#", "phase",
                loadHeader, "verdict", "stop", "requests", "req/s", "binding objective", "estimate", "95% interval"));
        for (SearchDocument.Level l : doc.levels()) {
            SearchDocument.Objective b = l.objectives().stream().filter(o -> o.objective().equals(l.bindingObjective()))
                    .findFirst().orElse(l.objectives().get(0));
            // an estimate names what kept the level from ending early
            List<String> open = l.resolved() ? List.of() : l.objectives().stream().filter(o -> !o.resolved())
                    .map(SearchDocument.Objective::objective).toList();
            out.append(String.format(Locale.ROOT, "%3d  %-6s  %12s  %-16s  %-8s  %8d  %8s  %-24s  %10s  [%s, %s]%s%n",
                    l.index(), l.phase(), SearchHtml.num(l.load()),
                    (l.passed() ? "pass" : "FAIL") + (l.resolved() ? "" : " (estimate)"), l.stop(), l.samples(),
                    SearchHtml.num(l.requestsS()), l.bindingObjective(), SearchHtml.num(b.estimate()),
                    SearchHtml.num(b.low()), SearchHtml.num(b.high()), open.isEmpty() ? "" : "  "
                            + unresolvedClause(open)));
        }
        for (String w : doc.warnings()) out.append("warning: ").append(w).append('\n');
        out.append(doc.verdict()).append('\n');
        return out.toString();
    }
}
