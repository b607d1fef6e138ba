package io.llmperf4j.report.search;

import java.util.Locale;

/** A search on the console: the table of levels, then the verdict in one line. */
public final class SearchConsole {
    private SearchConsole() {
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
            out.append(String.format(Locale.ROOT, "%3d  %-6s  %12s  %-16s  %-8s  %8d  %8s  %-24s  %10s  [%s, %s]%n",
                    l.index(), l.phase(), SearchHtml.num(l.load()),
                    (l.passed() ? "pass" : "FAIL") + (l.resolved() ? "" : " (estimate)"), l.stop(), l.samples(),
                    SearchHtml.num(l.requestsS()), l.bindingObjective(), SearchHtml.num(b.estimate()),
                    SearchHtml.num(b.low()), SearchHtml.num(b.high())));
        }
        for (String w : doc.warnings()) out.append("warning: ").append(w).append('\n');
        out.append(doc.verdict()).append('\n');
        return out.toString();
    }
}
