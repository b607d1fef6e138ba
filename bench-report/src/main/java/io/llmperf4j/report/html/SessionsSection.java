package io.llmperf4j.report.html;

import io.llmperf4j.report.summary.SessionsSummary;

/** The report's "Sessions" section: the prefix-cache hit rate and a table of latencies by turn index. */
final class SessionsSection {

    private SessionsSection() {
    }

    /**
     * Appends the section to {@code out}; nothing when {@code sessions} is null. A run without sessions gets the
     * prefix cache alone ("Prefix cache", no "0 sessions"); {@code notSucceeded} requests that failed or were
     * cancelled are said to be in the server's own rate only when there were any and the run has that rate
     * ({@code serverRateReported}).
     */
    static void render(SessionsSummary sessions, long notSucceeded, boolean serverRateReported, StringBuilder out) {
        if (sessions == null) return;
        boolean any = sessions.sessions() > 0;
        out.append("<section id=\"sessions\">\n<h2>").append(any ? "Sessions and prefix cache" : "Prefix cache")
                .append("</h2>\n<div class=\"card\">\n<p>");
        if (any) out.append(sessions.sessions()).append(sessions.sessions() == 1 ? " session" : " sessions");
        if (sessions.sessionsCompleted() != null) {
            out.append(" (").append(sessions.sessionsCompleted()).append(" completed, ").append(sessions.sessionsCut())
                    .append(" cut by a failed turn, the run's end or a stop)");
        }
        if (sessions.meanTurnsPerSession() != null) {
            out.append(", ").append(Html.esc(Html.fixed(sessions.meanTurnsPerSession(), 2)))
                    .append(" turns each on average, session duration (first send to last end) p50 ")
                    .append(Html.esc(Html.fixed(sessions.sessionDurationP50S(), 3))).append(" s, p90 ")
                    .append(Html.esc(Html.fixed(sessions.sessionDurationP90S(), 3))).append(" s");
        }
        out.append(any ? "; server-reported prefix-cache hit rate " : "Server-reported prefix-cache hit rate ")
                .append(sessions.prefixCacheHitRate() == null ? "not reported"
                        : Html.percent(sessions.prefixCacheHitRate()) + " (" + sessions.cachedTokens() + " of "
                        + sessions.promptTokens() + " prompt tokens of the successful requests"
                        + (sessions.singleRequests() == null ? "" : ", " + sessions.singleRequests()
                        + (sessions.singleRequests() == 1 ? " single request" : " single requests")
                        + " without a session included")
                        + SessionsSummary.serverRateAlsoCounts(notSucceeded, serverRateReported) + ")")
                .append("</p>\n");
        if (!sessions.byTurn().isEmpty()) {
            out.append("<table class=\"stats\">\n<thead><tr><th class=\"num\">turn</th><th class=\"num\">requests</th>"
                    + "<th class=\"num\">input tokens (mean)</th><th class=\"num\">TTFT mean (s)</th>"
                    + "<th class=\"num\">TTFT p50</th><th class=\"num\">TTFT p90</th><th class=\"num\">TPOT mean (s)"
                    + "</th><th class=\"num\">E2E mean (s)</th><th class=\"num\">E2E p90</th></tr></thead>\n<tbody>\n");
            for (SessionsSummary.TurnJson t : sessions.byTurn()) {
                out.append("<tr><td class=\"num\">").append(t.turn()).append("</td><td class=\"num\">")
                        .append(t.requests()).append("</td>");
                cell(out, Html.fixed(t.inputTokensMean(), 1));
                cell(out, Html.fixed(t.ttftMeanS(), 4));
                cell(out, Html.fixed(t.ttftP50S(), 4));
                cell(out, Html.fixed(t.ttftP90S(), 4));
                cell(out, Html.fixed(t.itlMeanS(), 5));
                cell(out, Html.fixed(t.e2eMeanS(), 4));
                cell(out, Html.fixed(t.e2eP90S(), 4));
                out.append("</tr>\n");
            }
            out.append("</tbody>\n</table>\n");
        }
        out.append("</div>\n</section>\n");
    }

    private static void cell(StringBuilder out, String text) {
        out.append("<td class=\"num\">").append(Html.esc(text)).append("</td>");
    }
}
