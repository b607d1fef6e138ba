package io.llmperf4j.report.html;

import io.llmperf4j.report.summary.Plural;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.model.FailureCause;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.ServerGone;
import io.llmperf4j.report.metrics.Metric;
import io.llmperf4j.report.metrics.MetricUnit;
import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.RunWarnings;
import io.llmperf4j.report.summary.Redaction;
import io.llmperf4j.report.summary.RunEnvironment;
import io.llmperf4j.report.summary.SloVerdictJson;
import io.llmperf4j.report.summary.SloVerdictText;
import io.llmperf4j.report.summary.ImageTokensWords;
import io.llmperf4j.report.summary.SummaryDocument;
import io.llmperf4j.report.summary.SummaryDocument.StatsJson;
import io.llmperf4j.report.output.OpenLoopFile;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Renders one {@link ReportData} as the report page. One instance per page; not thread-safe. */
final class HtmlPage {

    static final int MAX_CDF_POINTS = 1000;
    static final int MAX_SCATTER_POINTS = 5000;
    static final int MAX_EXAMPLES = 3;

    private static final double NANOS_PER_SECOND = 1e9;

    private static final JsonMapper JSON = JsonMapper.builder().build();

    static final String CSS = String.join("\n",
            ":root{--fg:#1d2330;--muted:#5b6475;--line:#d9dde5;--bg:#f4f5f7;--card:#fff;--accent:#1f77b4;"
                    + "--bad:#c62828;--warn:#9a5b00;--good:#2e7d32}",
            "*{box-sizing:border-box}",
            "body{margin:0;background:var(--bg);color:var(--fg);"
                    + "font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,Arial,sans-serif}",
            "main{max-width:1320px;margin:0 auto;padding:14px 20px 40px}",
            "h1{font-size:22px;margin:6px 0 2px}h1 .model{font-weight:600;color:var(--accent);word-break:break-all}",
            "h2{font-size:17px;margin:26px 0 10px;padding-bottom:4px;border-bottom:2px solid var(--line)}",
            "h3{font-size:14px;margin:0 0 8px}",
            ".sub{color:var(--muted);margin:0 0 8px;word-break:break-all}",
            ".simulated{color:var(--warn);margin:0 0 8px}",
            "nav{margin:8px 0 4px;font-size:13px}nav a{color:var(--accent);margin-right:14px;text-decoration:none}",
            ".card{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:12px 14px}",
            ".conditions{display:grid;grid-template-columns:repeat(auto-fit,minmax(380px,1fr));gap:12px}",
            ".conditions th{width:38%;color:var(--muted);font-weight:500}",
            ".conditions td{word-break:break-word}",
            "table{border-collapse:collapse;width:100%}",
            "th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}",
            "thead th{background:#eef1f5;font-weight:600}",
            "td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}",
            ".warnings{border-left:6px solid var(--warn);background:#fff6e5}",
            ".warnings ul{margin:4px 0 0;padding-left:20px}.warnings li{margin:3px 0}",
            ".warnings .code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-weight:700;"
                    + "color:var(--warn);margin-right:6px}",
            ".no-warnings{border-left:6px solid var(--good);background:#eef8ef}",
            ".stopped{border-left:6px solid var(--bad);background:#fdecea;margin-bottom:10px}",
            ".tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(165px,1fr));gap:10px;margin-top:12px}",
            ".tile{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:8px 12px}",
            ".tile .v{font-size:20px;font-weight:650;font-variant-numeric:tabular-nums}",
            ".tile .k{color:var(--muted);font-size:12px}.tile.bad .v{color:var(--bad)}",
            ".charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(520px,1fr));gap:12px}",
            "svg.chart{width:100%;height:auto;display:block}",
            ".caption{color:var(--muted);font-size:12px;margin:6px 0 0}",
            ".note{background:#eef4fb;border-left:4px solid var(--accent);padding:6px 10px;margin:8px 0}",
            "code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}",
            "code.msg{display:block;white-space:pre-wrap;word-break:break-word;background:#f7f7f9;"
                    + "border:1px solid var(--line);border-radius:4px;padding:3px 6px;margin:2px 0}",
            "tr.failing td,tr.has-failures td{background:#fdecea}",
            "tr.saturation td:first-child,tr.redline td:first-child{font-weight:700}",
            ".flag{display:inline-block;font-size:11px;border-radius:3px;padding:0 5px;margin:1px 4px 1px 0;"
                    + "color:#fff;background:var(--muted)}",
            ".flag.saturation{background:#6a3d9a}.flag.redline{background:var(--bad)}.flag.failing{background:#e65100}",
            "li.warn{color:var(--warn)}",
            "footer{margin-top:30px;color:var(--muted);font-size:12px}footer ul{padding-left:18px}",
            "@media print{body{background:#fff}.card,.tile{break-inside:avoid}nav{display:none}}");

    private final ReportData data;
    private final HtmlReportOptions options;
    private final SummaryDocument summary;
    private final StringBuilder out = new StringBuilder(64 * 1024);

    /** The capacity search this run is a level of, or null ({@link SearchLevel}). */
    private final SearchLevel searchLevel;

    HtmlPage(ReportData data, HtmlReportOptions options) {
        this.data = data;
        this.options = options;
        this.summary = data.summary();
        this.searchLevel = data.recordsFile() == null ? null
                : SearchLevel.of(data.recordsFile().toAbsolutePath().getParent());
    }

    /** The page as one string. */
    String render() {
        StringWriter page = new StringWriter(64 * 1024);
        try {
            render(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not throw
        }
        return page.toString();
    }

    /**
     * Writes the page to {@code sink} section by section: only one section's text is held at a time, not the
     * whole page and then its copy as a string and as bytes.
     */
    void render(Writer sink) throws IOException {
        String model = summary.settings() == null ? "" : summary.settings().model();
        out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
                .append("<meta name=\"generator\" content=\"llmperf4j ").append(Html.esc(toolVersion())).append("\"/>\n")
                .append("<title>llmperf4j report: ").append(Html.esc(model)).append("</title>\n")
                .append("<style>\n").append(CSS).append("\n</style>\n</head>\n<body>\n<main>\n");
        header(model);
        stoppedNotice();
        warnings();
        keyNumbers();
        conditions();
        summaryTable();
        drain(sink);
        charts();
        drain(sink);
        errors();
        SessionsSection.render(summary.sessions(), summary.run() == null ? 0
                : summary.run().requestsRecorded() - summary.run().requestsSucceeded(),
                summary.server() != null && summary.server().prefixCacheHitRate() != null, out);
        footer();
        out.append("</main>\n</body>\n</html>\n");
        drain(sink);
    }

    /** Hands the text built so far to {@code sink} through a small buffer (no string copy) and starts afresh. */
    private void drain(Writer sink) throws IOException {
        char[] chunk = new char[Math.min(8192, Math.max(1, out.length()))];
        for (int from = 0; from < out.length(); from += chunk.length) {
            int to = Math.min(out.length(), from + chunk.length);
            out.getChars(from, to, chunk, 0);
            sink.write(chunk, 0, to - from);
        }
        out.setLength(0);
    }

    // ---------------------------------------------------------------- header and test conditions

    private void header(String model) {
        SummaryDocument.SettingsJson s = summary.settings();
        SummaryDocument.RunJson run = summary.run();
        out.append("<header>\n<h1>llmperf4j report: <span class=\"model\">").append(Html.esc(model))
                .append("</span></h1>\n");
        List<String> sub = new ArrayList<>();
        OpenLoopFile.Document open = data.openLoop();
        if (s != null) {
            if (s.endpoint() != null) sub.add(Redaction.endpoint(s.endpoint()));
            if (open == null) {
                sub.add("concurrency " + s.numConcurrentRequests());
            } else { // num_concurrent_requests is the cap, or the peak measured: not a concurrency that was set
                sub.add(openLoopLoad(open, sessionsRun(open)));
                sub.add(inFlight(open, s.numConcurrentRequests()));
            }
        }
        if (run != null) {
            sub.add(run.startTime() + " \u2192 " + run.endTime() + " (" + Html.fixed(run.durationS(), 3) + " s)");
            if (run.timedOut()) sub.add("timed out");
            if (run.stoppedBy() != null) sub.add("stopped by " + run.stoppedBy());
        }
        out.append("<p class=\"sub\">").append(Html.esc(String.join(" \u00b7 ", sub))).append("</p>\n");
        // the model's name may be a real one's: say whose
        out.append(SimulatedNotice.paragraph(SimulatedNotice.simulated(summary)));
        if (searchLevel != null) {
            out.append("<p class=\"sub search-level\">").append(Html.esc(searchLevel.sentence())).append("</p>\n");
        }
        out.append("<nav><a href=\"#summary\">Summary</a><a href=\"#latency\">Latency</a>"
                + "<a href=\"#timeline\">Over time</a>");
        if (hasServerCharts()) out.append("<a href=\"#server\">Server</a>");
        out.append("<a href=\"#errors\">Errors</a>");
        out.append("<a href=\"#conditions\">Test conditions</a><a href=\"#method\">Method</a></nav>\n");
        out.append("</header>\n");
    }

    private void conditions() {
        SummaryDocument.SettingsJson s = summary.settings();
        SummaryDocument.RunJson run = summary.run();
        out.append("<section id=\"conditions\">\n<h2>Test conditions</h2>\n<div class=\"conditions\">\n");
        List<String[]> rows = new ArrayList<>();
        if (s != null) {
            rows.add(row("Model", s.model()));
            rows.add(row("Endpoint", Redaction.endpoint(s.endpoint())
                    + (SimulatedNotice.simulated(summary) ? " (llmperf4j's embedded simulated server)" : "")));
            rows.add(row("API", s.llmApi()));
            OpenLoopFile.Document open = data.openLoop();
            if (open == null) {
                rows.add(row("Concurrency", Integer.toString(s.numConcurrentRequests())));
                if (searchLevel != null) { // the search's limit, not --max-num-completed-requests
                    rows.add(row("Level limit (the search's)", searchLevel.levelMax()));
                    if (run != null) rows.add(row("Requests sent", Integer.toString(run.requestsSent())));
                } else {
                    rows.add(row("Requests to complete", Integer.toString(s.maxNumCompletedRequests())));
                }
            } else { // the arrivals, not --max-num-completed-requests (a trace replays all of its own)
                rows.add(row("Load", openLoopLoad(open, sessionsRun(open))));
                rows.add(open.maxConcurrency() != null
                        ? row("At most in flight", Integer.toString(open.maxConcurrency()))
                        : row("Peak in flight", Integer.toString(s.numConcurrentRequests())));
                boolean singles = open.trace() != null && open.trace().singleRequests() != null
                        && open.trace().singleRequests() > 0; // arrivals: sessions and single requests
                rows.add(row(sessionsRun(open) && !singles ? "Sessions scheduled" : "Arrivals scheduled",
                        Integer.toString(open.arrivalsScheduled())));
            }
            rows.add(row("Run timeout", s.timeoutS() + " s"));
            rows.add(row("Input tokens (mean \u00b1 sd)", s.meanInputTokens() + " \u00b1 " + s.stddevInputTokens()));
            rows.add(row("Output tokens (mean \u00b1 sd)", s.meanOutputTokens() + " \u00b1 " + s.stddevOutputTokens()));
            rows.add(row("Sampling parameters", json(s.additionalSamplingParams())));
            rows.add(row("Prompt mode", s.promptMode()));
            rows.add(row("Tokenizer", tokenizerWords(s)));
            rows.add(row("Seed", Long.toString(s.seed())));
            if (s.metadata() != null && !s.metadata().isEmpty()) {
                rows.add(row("Metadata", json(Redaction.metadata(s.metadata()))));
            }
        }
        table("Run parameters", rows);
        rows = new ArrayList<>();
        if (run != null) {
            rows.add(row("Start (UTC)", run.startTime()));
            rows.add(row("End (UTC)", run.endTime()));
            rows.add(row("Duration", Html.fixed(run.durationS(), 3) + " s" + (run.timedOut() ? " (timed out)" : "")));
            rows.add(row("Requests", run.requestsSent() + " sent, " + run.requestsRecorded() + " recorded, "
                    + run.requestsSucceeded() + " succeeded, " + run.requestsFailed() + " failed"));
        }
        SummaryDocument.ImagesJson images = summary.images();
        if (images != null) { // the summary's images block, with the detail that sets what an image costs
            rows.add(row("Images", images.imagesSent() + " sent in " + images.requestsWithImages() + " requests ("
                    + Html.fixed(images.pixelsSent() / 1e6, 1) + " Mpixel, " + Html.fixed(images.bytesSent() / 1e6, 1)
                    + " MB), detail " + (images.detail() == null ? "not sent (the server's default)" : images.detail())
                    + "; input tokens: " + ImageTokensWords.perImage(images)));
        }
        Integer turnsNotSent = summary.sessions() == null ? null : summary.sessions().turnsNotSent();
        if (turnsNotSent != null && turnsNotSent > 0) { // sessions the run's end cut mid-session, either loop
            rows.add(row("Session turns not sent", turnsNotSent + (turnsNotSent == 1 ? " turn" : " turns")
                    + " of the sessions in progress when the run ended"));
        }
        OpenLoopFile.Document open = data.openLoop();
        if (open != null) {
            if (sessionsRun(open)) { // each arrival starts a session; the requests sent are their turns
                boolean singles = open.trace() != null && open.trace().singleRequests() != null
                        && open.trace().singleRequests() > 0;
                rows.add(row(singles ? "Sessions and single requests" : "Sessions", open.arrivalsScheduled()
                        + " scheduled, " + (open.arrivalsScheduled() - open.arrivalsNotSent()) + " started, "
                        + open.arrivalsNotSent() + " not started; " + open.requestsSent()
                        + (open.requestsSent() == 1 ? " request (turn)" : " requests (turns)") + " sent, "
                        + sessionRequestsNotSent(open, turnsNotSent) + " not sent; largest backlog "
                        + open.maxBacklog() + " (turns due but not yet sent)"));
            } else {
                rows.add(row("Arrivals", open.arrivalsScheduled() + " scheduled, " + open.requestsSent() + " sent, "
                        + open.arrivalsNotSent() + " not sent; largest backlog " + open.maxBacklog()));
            }
            Integer traceNotSent = open.trace() == null ? null : open.trace().requestsNotSent();
            if (traceNotSent != null && traceNotSent > 0) { // with sessions, later turns are not arrivals
                rows.add(row("Trace requests not sent", traceNotSent + " of " + open.trace().requests()));
            }
            OpenLoopFile.Latency lag = open.sendLagMs();
            if (lag != null && lag.count() > 0) {
                rows.add(row("Send lag", "p50 " + Html.fixed(lag.p50(), 3) + " ms, p99 " + Html.fixed(lag.p99(), 3)
                        + " ms, max " + Html.fixed(lag.max(), 3) + " ms (intended to actual send)"));
            }
            OpenLoopFile.Latency ttft = open.ttftFromIntendedMs();
            if (ttft != null && ttft.count() > 0) {
                rows.add(row("TTFT from intended send", "p50 " + Html.fixed(ttft.p50(), 1) + " ms, p99 "
                        + Html.fixed(ttft.p99(), 1) + " ms (the tables count from the actual send)"));
            }
        }
        SummaryDocument.TokenCountingJson tc = summary.tokenCounting();
        if (tc != null) {
            rows.add(row("Output token counts", tc.outputTokenSource() + sources(tc.outputTokenSourceCounts())
                    + (tc.preferServerUsage() ? "; server usage preferred" : "; client tokenizer preferred")
                    + "; client count minus " + tc.clientSpecialTokensSubtracted() + " special"));
            rows.add(row("Input token counts", tc.inputTokenSource() + sources(tc.inputTokenSourceCounts())));
            SummaryDocument.DiscrepancyJson d = tc.outputTokenDiscrepancy();
            if (d != null && d.requestsCompared() > 0) {
                rows.add(row("Client vs server count", d.requestsDiffering() + " of " + d.requestsCompared()
                        + " requests differ (" + Html.fixed(d.percentDiffering(), 1) + " %), mean |d| "
                        + Html.fixed(d.meanAbsoluteDifference(), 2) + ", max " + d.maxAbsoluteDifference()));
            }
        }
        rows.add(row("Records", data.records().size() + " from " + data.source().description()
                + (data.recordsFile() == null
                || data.recordsFile().getFileName().toString().equals(data.source().description()) ? ""
                : " (" + data.recordsFile().getFileName() + ")")
                + (data.source().hasEventTimes() ? "" : "; no per-event times")));
        table("Run", rows);
        rows = new ArrayList<>();
        rows.add(row("Tool", summary.tool() == null ? "llmperf4j" : summary.tool().name() + " " + summary.tool().version()));
        RunEnvironment env = summary.environment();
        if (env != null) {
            rows.add(row("JVM", env.jvmName() + " " + env.jvmVersion() + " (" + env.jvmVendor() + ")"));
            rows.add(row("OS", env.osName() + " " + env.osVersion() + " (" + env.osArch() + ")"));
            rows.add(row("CPUs", Integer.toString(env.availableProcessors())));
        }
        table("Client machine", rows);
        out.append("</div>\n</section>\n");
    }

    /**
     * An open loop's load as its {@code _open_loop.json} gives it: "open loop, 20 req/s constant arrivals (seed 0)",
     * or for a trace replay (no arrival drawn, no seed) "trace replay of mooncake:t.jsonl (5 requests over 1.5 s,
     * speedup 2), mean 2.67 req/s", as the console's load line names it.
     */
    static String openLoopLoad(OpenLoopFile.Document o, boolean sessions) {
        OpenLoopFile.TraceJson t = o.trace();
        if (t != null) {
            return "trace replay of " + t.source() + " (" + traceWhat(t) + " s, speedup " + significant(t.speedup())
                    + traceWindow(t) + "), " + traceRate(t, o.offeredRequestsPerS());
        }
        String arrival = o.burstiness() != null ? o.arrival() + " (burstiness " + plain(o.burstiness()) + ")"
                : o.arrival();
        return "open loop, " + plain(o.offeredRequestsPerS()) + (sessions ? " sessions/s, " : " req/s, ") + arrival
                + (sessions ? " session arrivals" : " arrivals") + (o.seed() == null ? "" : " (seed " + o.seed() + ")");
    }

    /**
     * The part of the trace replayed, in the console's words (Arrival.Trace): ", first 10 s" (--trace-duration),
     * ", from 3600 s" (--trace-start), ", from 3600 s for 600 s" (both), "" for the whole trace.
     */
    private static String traceWindow(OpenLoopFile.TraceJson t) {
        String length = t.durationS() == null ? "" : seconds(t.durationS()) + " s";
        if (t.startS() == null) return t.durationS() == null ? "" : ", first " + length;
        return ", from " + seconds(t.startS()) + " s" + (t.durationS() == null ? "" : " for " + length);
    }

    /** Seconds as the flag gave them, to the nanosecond: 3601, 0.25, 0.0001. */
    private static String seconds(double s) {
        return BigDecimal.valueOf(Math.round(s * 1e9)).movePointLeft(9).stripTrailingZeros().toPlainString();
    }

    /**
     * What the trace replayed, in the console's words (Arrival.Trace.details in bench-engine): "5 requests over 1.5",
     * with sessions their starts, "2 sessions (5 requests) starting over 0.2", and a request without a session as one
     * of its own, "2 sessions (4 requests) and 3 single requests starting over 0.25"; a file written before
     * {@code session_span_s} gives the span of every request: "over", not "starting over".
     */
    private static String traceWhat(OpenLoopFile.TraceJson t) {
        if (t.sessions() == null || t.sessions() == 0) {
            return t.requests() + (t.requests() == 1 ? " request" : " requests") + " over " + significant(t.spanS());
        }
        int singles = t.singleRequests() == null ? 0 : t.singleRequests();
        int inSessions = t.requests() - singles;
        String what = t.sessions() + (t.sessions() == 1 ? " session (" : " sessions (") + inSessions
                + (inSessions == 1 ? " request)" : " requests)")
                + (singles == 0 ? "" : " and " + singles + (singles == 1 ? " single request" : " single requests"));
        return t.sessionSpanS() != null ? what + " starting over " + significant(t.sessionSpanS())
                : what + " over " + significant(t.spanS());
    }

    /**
     * The requests of a sessions run never sent, as the console's Sessions line says them: a trace's (its later turns
     * too), else the turns of the sessions in progress when the run ended.
     */
    private static int sessionRequestsNotSent(OpenLoopFile.Document open, Integer turnsNotSent) {
        if (open.trace() != null && open.trace().requestsNotSent() != null) return open.trace().requestsNotSent();
        return turnsNotSent == null ? 0 : turnsNotSent;
    }

    /**
     * Whether the open loop's arrivals start multi-turn sessions: a trace with sessions, or drawn arrivals whose
     * records carry sessions (the summary's {@code sessions} section counts them; first turns count, so a run cut
     * before any later turn is one too).
     */
    private boolean sessionsRun(OpenLoopFile.Document o) {
        if (o.trace() != null) return o.trace().sessions() != null && o.trace().sessions() > 0;
        return summary.sessions() != null && summary.sessions().sessions() > 0;
    }

    /**
     * "mean 2.67 req/s", or for a trace whose requests share one timestamp, whose offered rate is only a stand-in,
     * the console's words (Arrival.Trace.atOneInstant in bench-engine, which this module cannot depend on).
     */
    private static String traceRate(OpenLoopFile.TraceJson t, double offeredRequestsPerS) {
        if (t.sessions() != null) { // their starts, and single requests' as the console counts them
            boolean singles = t.singleRequests() != null && t.singleRequests() > 0;
            return "mean " + significant(offeredRequestsPerS) + (singles ? " arrivals/s" : " sessions/s");
        }
        if (t.spanS() != 0) return "mean " + significant(offeredRequestsPerS) + " req/s";
        return t.requests() == 1 ? "its one request at t=0" : "all " + t.requests() + " requests at t=0 (a burst)";
    }

    /** "at most 4 in flight" (the cap) or "peak 14 in flight" (measured, uncapped). */
    private static String inFlight(OpenLoopFile.Document o, int numConcurrentRequests) {
        return o.maxConcurrency() != null ? "at most " + o.maxConcurrency() + " in flight"
                : "peak " + numConcurrentRequests + " in flight";
    }

    /** 3 significant digits without trailing zeros: 2.67, 1.5, 20. */
    private static String significant(double v) {
        if (!Double.isFinite(v)) return "-";
        return new BigDecimal(v).round(new MathContext(3)).stripTrailingZeros().toPlainString();
    }

    /** A value as given: 20, 2.5. */
    private static String plain(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }

    private static String sources(SummaryDocument.TokenSourcesJson c) {
        if (c == null) return "";
        return " (server usage " + c.serverUsage() + ", client tokenizer " + c.clientTokenizer() + ", none "
                + c.none() + ")";
    }

    private static String[] row(String key, String value) {
        return new String[] {key, value == null ? "-" : value};
    }

    private void table(String title, List<String[]> rows) {
        out.append("<div class=\"card\">\n<h3>").append(Html.esc(title)).append("</h3>\n<table>\n");
        for (String[] r : rows) {
            out.append("<tr><th scope=\"row\">").append(Html.esc(r[0])).append("</th><td>").append(Html.esc(r[1]))
                    .append("</td></tr>\n");
        }
        out.append("</table>\n</div>\n");
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            return String.valueOf(value);
        }
    }

    // ---------------------------------------------------------------- warnings and key numbers

    /**
     * The summary's {@code run.stopped_by}: a signal (Ctrl-C, a scheduler's TERM) cut this run short, so every
     * figure on the page is of the part it ran. Said first, above the warnings.
     */
    private void stoppedNotice() {
        SummaryDocument.RunJson run = summary.run();
        if (run == null || run.stoppedBy() == null) return;
        out.append("<section id=\"stopped\" class=\"card stopped\" role=\"alert\"><strong>Stopped by ")
                .append(Html.esc(run.stoppedBy())).append(" before its end.</strong> The signal cut this run short: "
                        + "its requests in flight were cancelled and it did not run to its end, so the figures below "
                        + "are of the ").append(Html.fixed(run.durationS(), 3)).append(" s it ran (")
                .append(run.requestsRecorded()).append(" requests recorded), not of the whole run that was asked "
                        + "for.</section>\n");
    }

    private void warnings() {
        List<SummaryDocument.WarningJson> warnings = summary.warnings();
        if (warnings.isEmpty()) {
            out.append("<section id=\"warnings\" class=\"card no-warnings\"><strong>No warnings.</strong> "
                    + "The run raised none of llmperf4j's result warnings.</section>\n");
            return;
        }
        out.append("<section id=\"warnings\" class=\"card warnings\" role=\"alert\">\n<strong>")
                .append(warnings.size()).append(warnings.size() == 1 ? " warning" : " warnings")
                .append(": read these before the numbers.</strong>\n<ul>\n");
        for (SummaryDocument.WarningJson w : warnings) {
            // the level's file keeps a plain run's words: "when the run ended" was the search ending the level
            boolean bySearch = searchLevel != null && searchLevel.endedBySearch()
                    && "REQUESTS_CANCELLED".equals(w.code());
            out.append("<li><span class=\"code\">").append(Html.esc(w.code())).append("</span>")
                    .append(Html.esc(w.message())).append(bySearch ? Html.esc(" Here the run's end was the capacity "
                            + "search's: " + searchLevel.howItEnded() + ", so they were cancelled by the search, not "
                            + "failed by the server.") : "").append("</li>\n");
        }
        out.append("</ul>\n</section>\n");
    }

    /** The records cancelled by the client (in flight at the run's end). */
    private int cancelledCount() {
        return (int) data.records().stream().filter(r -> r.failure() != null
                && r.failure().kind() == io.llmperf4j.model.FailureKind.CANCELLED).count();
    }

    private void keyNumbers() {
        SummaryDocument.RunJson run = summary.run();
        SummaryDocument.ThroughputJson t = summary.throughput();
        SummaryDocument.ErrorsJson e = summary.errors();
        out.append("<section class=\"tiles\" aria-label=\"Key numbers\">\n");
        if (run != null) {
            tile(run.requestsSucceeded() + " / " + run.requestsRecorded(), "requests succeeded / recorded",
                    run.requestsFailed() > 0);
        }
        if (t != null) {
            tile(Html.fixed(t.outputTokensPerS(), 2), "output tok/s (run)", false);
            tile(Html.fixed(t.requestsPerS(), 3), "requests/s (run)", false);
        }
        tile(pair(Metric.TTFT), "TTFT p50 / p90 (ms)", false);
        tile(pair(Metric.E2E_LATENCY), "E2E p50 / p90 (ms)", false);
        StatsJson tpot = stats(Metric.TPOT);
        tile(tpot == null ? "-" : Html.adaptive(tpot.p50()), "TPOT p50 (ms)", false);
        if (e != null) {
            int bySearch = searchLevel != null && searchLevel.endedBySearch() ? cancelledCount() : 0;
            tile(Html.percent(e.rate()), "error rate (" + e.count() + " failed" + (bySearch == 0 ? ""
                    : bySearch == e.count() ? ": all cancelled by the search" : ", " + bySearch
                    + " cancelled by the search") + ")", e.count() > bySearch);
        }
        SummaryDocument.GoodputJson g = summary.goodput();
        if (g != null) {
            tile(Html.fixed(g.goodRequestsPerS(), 3) + " req/s", "goodput, " + Html.percent(g.goodFraction())
                    + " good", g.goodFraction() != null && g.goodFraction() < 1);
        }
        SloVerdictJson slo = summary.slo();
        if (slo != null) {
            tile("SLO " + (slo.passed() ? "PASS" : "FAIL"), slo.objectives().size() + (slo.objectives().size() == 1 ? " objective, " : " objectives, ")
                    + (slo.resolved() ? "resolved at 95 %" : "by the estimates"), !slo.passed());
        }
        out.append("</section>\n");
    }

    private String pair(Metric metric) {
        StatsJson s = stats(metric);
        return s == null ? "-" : Html.adaptive(s.p50()) + " / " + Html.adaptive(s.p90());
    }

    private void tile(String value, String label, boolean bad) {
        out.append("<div class=\"tile").append(bad ? " bad" : "").append("\"><div class=\"v\">").append(Html.esc(value))
                .append("</div><div class=\"k\">").append(Html.esc(label)).append("</div></div>\n");
    }

    private StatsJson stats(Metric metric) {
        return summary.metrics().get(metric.jsonKey());
    }

    // ---------------------------------------------------------------- summary table

    private void summaryTable() {
        out.append("<section id=\"summary\">\n<h2>Summary</h2>\n<div class=\"card\">\n<table class=\"stats\">\n")
                .append("<thead><tr><th>metric</th><th class=\"num\">n</th><th class=\"num\">p50</th>"
                        + "<th class=\"num\">p90</th><th class=\"num\">p99</th><th class=\"num\">mean</th>"
                        + "<th>unit</th></tr></thead>\n<tbody>\n");
        for (Metric metric : Metric.values()) {
            StatsJson s = stats(metric);
            if (metric.shownOnlyWithValues() && (s == null || s.count() == 0)) continue;
            int d = decimals(metric.unit());
            out.append("<tr data-metric=\"").append(metric.jsonKey()).append("\"><td>").append(Html.esc(metric.label()))
                    .append("</td><td class=\"num\">").append(s == null ? "0" : Long.toString(s.count()))
                    .append("</td><td class=\"num\">").append(s == null ? "-" : Html.fixed(s.p50(), d))
                    .append("</td><td class=\"num\">").append(s == null ? "-" : Html.fixed(s.p90(), d))
                    .append("</td><td class=\"num\">").append(s == null ? "-" : Html.fixed(s.p99(), d))
                    .append("</td><td class=\"num\">").append(s == null ? "-" : Html.fixed(s.mean(), d))
                    .append("</td><td>").append(Html.esc(metric.unit().reportName())).append("</td></tr>\n");
        }
        out.append("</tbody>\n</table>\n");
        SummaryDocument.ThroughputJson t = summary.throughput();
        SummaryDocument.ErrorsJson e = summary.errors();
        SummaryDocument.RunJson run = summary.run();
        if (t != null && e != null && run != null) {
            out.append("<p>Output throughput: <strong>").append(Html.fixed(t.outputTokensPerS(), 2))
                    .append("</strong> tok/s (").append(t.totalOutputTokens()).append(" tokens in ")
                    .append(Html.fixed(run.durationS(), 3)).append(" s)");
            if (t.outputTokensDeliveredByFailed() != null && t.outputTokensDeliveredByFailed() > 0) {
                // llmperf's figure leaves out what cancelled and failed requests delivered inside the same window
                out.append(", <span class=\"delivered\">").append(Html.fixed(t.outputTokensPerSDelivered(), 2))
                        .append(" tok/s counting every token delivered in the window (")
                        .append(Html.fixed(t.outputTokensDeliveredByFailed(), 0))
                        .append(" from requests cancelled or failed after their content began)</span>");
            }
            out.append(" \u00b7 Request throughput: <strong>")
                    .append(Html.fixed(t.requestsPerS(), 3)).append("</strong> req/s \u00b7 Errors: ")
                    .append(e.count()).append(" of ").append(run.requestsRecorded()).append(" (")
                    .append(Html.esc(Html.percent(e.rate()))).append(")</p>\n");
        }
        SummaryDocument.GoodputJson g = summary.goodput();
        if (g != null) {
            // goodput is judged from the intended send (send lag included) in an open loop and in sessions, as the
            // console says; the verdict block records which (a summary from before it: an open loop's page only)
            boolean fromIntended = summary.slo() != null ? summary.slo().fromIntendedSend() : data.openLoop() != null;
            String from = fromIntended ? ", from the intended send" : "";
            out.append("<p>Goodput (").append(Html.esc(describe(g.slo()) + from)).append("): <strong>")
                    .append(Html.fixed(g.goodRequestsPerS(), 3)).append("</strong> req/s, ").append(g.goodRequests())
                    .append(" of ").append(g.judgedRequests()).append(" requests good (")
                    .append(Html.esc(Html.percent(g.goodFraction()))).append("); violations: TTFT ")
                    .append(g.violations().ttft()).append(", TPOT ").append(g.violations().tpot()).append(", E2E ")
                    .append(g.violations().e2eLatency()).append("</p>\n");
        }
        sloVerdict(summary.slo());
        SummaryDocument.PhasesJson phases = summary.phases();
        if (phases != null && phases.ttftBreakdownMeanMs() != null) {
            SummaryDocument.TtftBreakdownJson b = phases.ttftBreakdownMeanMs();
            out.append("<p class=\"caption\" id=\"ttft-phases\">Where TTFT went (mean over ")
                    .append(phases.requestsTimed()).append(" requests with every phase timed): ")
                    .append(Html.esc(String.format(Locale.ROOT, "%.3f ms = wait %.3f + connect %.3f + write %.3f "
                                    + "+ server %.3f + first content %.3f", b.ttft(), b.connectionWait(), b.connect(),
                            b.requestWrite(), b.responseHeaders(), b.firstContent())))
                    .append(" ms.</p>\n");
        }
        out.append("<p class=\"caption\">Distributions cover successful requests only; ITL pools every gap between "
                + "content events. Percentiles: ").append(Html.esc(summary.statistics() == null ? "HdrHistogram"
                : summary.statistics().percentileMethod())).append(".</p>\n");
        out.append("</div>\n</section>\n");
    }

    /** The --slo verdict, as the console words it (absent without objectives). */
    private void sloVerdict(SloVerdictJson slo) {
        if (slo == null) return;
        out.append("<div id=\"slo-verdict\" class=\"").append(slo.passed() ? "slo-pass" : "slo-fail").append("\">")
                .append("<p><strong>").append(Html.esc(SloVerdictText.header(slo))).append("</strong></p>\n<ul>\n");
        for (SloVerdictJson.ObjectiveJson o : slo.objectives()) {
            out.append("<li data-objective=\"").append(Html.esc(o.objective())).append("\" data-passed=\"")
                    .append(o.passed()).append("\">").append(Html.esc(SloVerdictText.line(o))).append("</li>\n");
        }
        out.append("</ul>\n</div>\n");
    }

    private static String describe(SummaryDocument.SloJson slo) {
        List<String> parts = new ArrayList<>();
        if (slo.ttftMs() != null) parts.add("TTFT \u2264 " + trim(slo.ttftMs()) + " ms");
        if (slo.tpotMs() != null) parts.add("TPOT \u2264 " + trim(slo.tpotMs()) + " ms");
        if (slo.e2eLatencyMs() != null) parts.add("E2E \u2264 " + trim(slo.e2eLatencyMs()) + " ms");
        return String.join(", ", parts);
    }

    private static String trim(double v) {
        return new java.math.BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
    }

    static int decimals(MetricUnit unit) {
        return switch (unit) {
            case NANOSECONDS -> 3;
            case TOKENS_PER_SECOND -> 2;
            case TOKENS -> 1;
        };
    }

    // ---------------------------------------------------------------- charts

    private void charts() {
        List<RequestRecord> records = data.records();
        List<RequestMetrics> requests = data.requestMetrics();
        SummaryDocument.SloJson slo = summary.goodput() == null ? null : summary.goodput().slo();

        out.append("<section id=\"latency\">\n<h2>Latency distributions</h2>\n<div class=\"charts\">\n");
        cdfCard("ttft-cdf", "TTFT, empirical CDF", "TTFT", ReportSeries.ttftMillisOf(requests), Palette.BLUE,
                slo == null ? null : slo.ttftMs(), "successful requests with content");
        cdfCard("e2e-cdf", "E2E latency, empirical CDF", "E2E latency", ReportSeries.e2eMillisOf(requests),
                Palette.ORANGE, slo == null ? null : slo.e2eLatencyMs(), "successful requests");
        out.append("</div>\n</section>\n");

        out.append("<section id=\"timeline\">\n<h2>Over time</h2>\n");
        Timeline timeline = Timeline.of(summary, records);
        ReportSeries.TimeBuckets buckets = ReportSeries.timeBuckets(records, data.tokenCounting(),
                timeline.originEpochNanos(), timeline.spanNanos(), timeline.bucketNanos());
        String width = timeline.bucketWidth();
        if (!data.source().hasEventTimes()) {
            out.append("<p class=\"note\">These records come from ").append(Html.esc(data.source().description()))
                    .append(", which has no per-event times: output tokens/s over time spreads each request's tokens "
                            + "evenly from its first token to its end (per-request averages), so bursts are "
                            + "smoothed out. Write requests.jsonl (the default) for the exact chart.</p>\n");
        }
        out.append("<div class=\"charts\">\n");
        tokensOverTime(buckets, width);
        inFlight(buckets, width);
        ttftScatter(timeline, requests, buckets.size() * buckets.bucketSeconds(), slo == null ? null : slo.ttftMs());
        out.append("</div>\n</section>\n");
        if (hasServerCharts()) {
            new ServerCharts(summary, data.serverTimeline(), timeline, buckets, out).render();
        }
    }

    private boolean hasServerCharts() {
        return data.serverTimeline() != null && !data.serverTimeline().successfulScrapes().isEmpty();
    }

    private void cdfCard(String id, String title, String label, double[] valuesMs, String color, Double sloMs,
                         String population) {
        ReportSeries.Cdf cdf = ReportSeries.empiricalCdf(valuesMs);
        ReportSeries.Cdf drawn = cdf.thinned(MAX_CDF_POINTS);
        boolean log = switch (options.cdfScale()) {
            case LOG -> true;
            case LINEAR -> false;
            case AUTO -> !cdf.isEmpty() && cdf.values()[0] > 0
                    && cdf.values()[cdf.size() - 1] / cdf.values()[0] >= HtmlReportOptions.AUTO_LOG_RATIO;
        };
        double[][] pts = drawn.stepPoints();
        SvgChart.Axis xAxis = SvgChart.Axis.linear(label, "ms");
        if (log) xAxis = xAxis.withScale(SvgChart.Scale.LOG);
        SvgChart.Builder chart = SvgChart.builder(id, title + (log ? " (log x)" : ""))
                .x(xAxis)
                .y(SvgChart.Axis.linear("Fraction of requests \u2264 x", null).withRange(0, 1))
                .add(SvgChart.Series.step(label + " (" + Plural.of(cdf.size(), "request") + ")", color, pts[0], pts[1])
                        .withClass("cdf"))
                .mark(SvgChart.Marker.horizontal(0.5, "p50", Palette.GREY, "marker-p50"))
                .mark(SvgChart.Marker.horizontal(0.9, "p90", Palette.GREY, "marker-p90"))
                .emptyMessage("No " + population);
        if (sloMs != null) chart.mark(SvgChart.Marker.vertical(sloMs, "SLO " + trim(sloMs) + " ms", Palette.RED, "marker-slo"));
        out.append("<div class=\"card\">").append(chart.build().toSvg()).append("<p class=\"caption\">")
                .append(Html.esc(cdf.size() + " " + population + "; each step is one request"
                        + (drawn.size() < cdf.size() ? " (drawn from " + drawn.size() + " evenly spaced ranks)" : "")
                        + (log ? "; log scale" : "") + "."))
                .append("</p></div>\n");
    }

    private void tokensOverTime(ReportSeries.TimeBuckets b, String width) {
        double[] edges = b.edgesSeconds();
        double[] rate = b.outputTokensPerSecond();
        double[] ys = new double[edges.length];
        System.arraycopy(rate, 0, ys, 0, rate.length);
        ys[ys.length - 1] = rate.length == 0 ? 0 : rate[rate.length - 1];
        String how = data.source().hasEventTimes() ? "by content event times" : "per-request averages";
        SvgChart.Builder chart = SvgChart.builder("tokens-over-time", "Output tokens/s over time (" + width
                        + " buckets, " + how + ")")
                .x(SvgChart.Axis.linear("Time since run start", "s").withRange(0, edges[edges.length - 1]))
                .y(SvgChart.Axis.linear("Output throughput", "tok/s").includingZero())
                .add(SvgChart.Series.step("output tok/s", Palette.GREEN, edges, ys).withClass("tokens-per-second"))
                .emptyMessage("No output tokens");
        SummaryDocument.ThroughputJson t = summary.throughput();
        if (t != null && t.outputTokensPerS() != null && b.totalOutputTokens() > 0) {
            chart.mark(SvgChart.Marker.horizontal(t.outputTokensPerS(), "run average " + Html.fixed(t.outputTokensPerS(), 1)
                    + " tok/s", Palette.GREY, "marker-average"));
        }
        out.append("<div class=\"card\">").append(chart.build().toSvg()).append("<p class=\"caption\">")
                .append(Html.esc(String.format(Locale.ROOT, "Output tokens of successful requests (%s) per %s "
                                + "bucket, %s%s; Σ = %.0f tokens. The last bucket may be partial.",
                        summary.tokenCounting() == null ? "by their token source"
                                : "counted by " + summary.tokenCounting().outputTokenSource(),
                        width, b.requestsWithEvents() > 0 ? eventPlacement(b) : "",
                        b.requestsSpreadEvenly() > 0 ? (b.requestsWithEvents() > 0 ? "; " : "")
                                + b.requestsSpreadEvenly() + " request(s) without event times spread evenly from "
                                + "first token to end" : "",
                        b.totalOutputTokens())))
                .append("</p></div>\n");
    }

    private static String eventPlacement(ReportSeries.TimeBuckets b) {
        int evenly = b.requestsWithEvents() - b.requestsWithEventTokens();
        if (evenly == 0) return "each request's tokens placed at its content events' arrival times, by the tokens "
                + "each event carried";
        if (b.requestsWithEventTokens() == 0) return "each request's tokens placed at its content events' arrival "
                + "times, split evenly over the events (tokens per event not counted)";
        return "each request's tokens placed at its content events' arrival times, by the tokens each event carried ("
                + evenly + " request(s) without counted tokens per event: split evenly over the events)";
    }

    private void inFlight(ReportSeries.TimeBuckets b, String width) {
        double[] edges = b.edgesSeconds();
        double[] mean = new double[edges.length];
        double[] peak = new double[edges.length];
        for (int i = 0; i < b.size(); i++) {
            mean[i] = b.meanInFlight()[i];
            peak[i] = b.peakInFlight()[i];
        }
        if (b.size() > 0) {
            mean[edges.length - 1] = mean[b.size() - 1];
            peak[edges.length - 1] = peak[b.size() - 1];
        }
        SvgChart.Builder chart = SvgChart.builder("in-flight", "Requests in flight (" + width + " buckets)")
                .x(SvgChart.Axis.linear("Time since run start", "s").withRange(0, edges[edges.length - 1]))
                .y(SvgChart.Axis.linear("Requests in flight", "requests").includingZero())
                .add(SvgChart.Series.step("peak", Palette.PURPLE, edges, peak).asDashed().withClass("in-flight-peak"))
                .add(SvgChart.Series.step("time-averaged", Palette.BLUE, edges, mean).withClass("in-flight-mean"))
                .emptyMessage("No requests");
        if (summary.settings() != null && summary.settings().numConcurrentRequests() > 0) {
            chart.mark(SvgChart.Marker.horizontal(summary.settings().numConcurrentRequests(),
                    "concurrency " + summary.settings().numConcurrentRequests(), Palette.GREY, "marker-concurrency"));
        }
        out.append("<div class=\"card\">").append(chart.build().toSvg()).append("<p class=\"caption\">")
                .append(Html.esc("Every recorded request counts from its send to its end (failures included). "
                        + "Peak: most at once within the bucket; time-averaged: request-seconds / bucket seconds. "
                        + "Highest peak: " + b.maxInFlight() + "."))
                .append("</p></div>\n");
    }

    private void ttftScatter(Timeline timeline, List<RequestMetrics> requests, double extentSeconds, Double sloMs) {
        List<Timeline.TtftPoint> points = timeline.ttftPoints(requests, MAX_SCATTER_POINTS);
        long withTtft = requests.stream().filter(r -> r.ttftNanos().isPresent()).count();
        int stride = Timeline.stride((int) withTtft, MAX_SCATTER_POINTS);
        List<double[]> ok = new ArrayList<>();
        List<String> okTitles = new ArrayList<>();
        List<double[]> failed = new ArrayList<>();
        List<String> failedTitles = new ArrayList<>();
        for (Timeline.TtftPoint p : points) {
            (p.succeeded() ? ok : failed).add(new double[] {p.sendSeconds(), p.ttftMs()});
            (p.succeeded() ? okTitles : failedTitles).add(p.title());
        }
        SvgChart.Builder chart = SvgChart.builder("ttft-scatter", "TTFT per request over time")
                .x(SvgChart.Axis.linear("Send time since run start", "s").withRange(0, extentSeconds))
                .y(SvgChart.Axis.linear("TTFT", "ms").includingZero())
                .add(points("succeeded", Palette.BLUE, ok, okTitles, SvgChart.Shape.CIRCLE, "ttft-ok"))
                .emptyMessage("No request received content");
        if (!failed.isEmpty()) {
            chart.add(points("failed later", Palette.RED, failed, failedTitles, SvgChart.Shape.CROSS, "ttft-failed"));
        }
        StatsJson ttft = stats(Metric.TTFT);
        if (ttft != null && ttft.p90() != null) {
            chart.mark(SvgChart.Marker.horizontal(ttft.p90(), "p90 " + Html.fixed(ttft.p90(), 1) + " ms",
                    Palette.GREY, "marker-p90"));
        }
        if (sloMs != null) {
            chart.mark(SvgChart.Marker.horizontal(sloMs, "SLO " + trim(sloMs) + " ms", Palette.RED, "marker-slo"));
        }
        out.append("<div class=\"card\">").append(chart.build().toSvg()).append("<p class=\"caption\">")
                .append(Html.esc(Plural.of(withTtft, "request") + " with a first token, by send time"
                        + (stride > 1 ? "; every " + stride + "th drawn" : "")
                        + ". A rising band means requests queue: the server is saturated."))
                .append("</p></div>\n");
    }

    private static SvgChart.Series points(String name, String color, List<double[]> pts, List<String> titles,
                                          SvgChart.Shape shape, String cssClass) {
        double[] xs = pts.stream().mapToDouble(p -> p[0]).toArray();
        double[] ys = pts.stream().mapToDouble(p -> p[1]).toArray();
        return SvgChart.Series.markers(name + " (" + pts.size() + ")", color, xs, ys).withShape(shape)
                .withTitles(titles.toArray(String[]::new)).withClass(cssClass);
    }

    // ---------------------------------------------------------------- errors

    private void errors() {
        SummaryDocument.ErrorsJson e = summary.errors();
        // a sweep's level the verdict read as the server gone since an earlier level: its summary says so
        ServerGone.Earlier earlier = e == null ? null : e.serverGoneBefore();
        List<ReportSeries.ErrorGroup> groups = ReportSeries.errorGroups(data.records(), MAX_EXAMPLES, earlier);
        ServerGone gone = ServerGone.of(data.records()).orElse(null);
        out.append("<section id=\"errors\">\n<h2>Errors</h2>\n<div class=\"card\">\n");
        if (groups.isEmpty()) {
            out.append("<p>No request failed.</p>\n");
        } else {
            int failed = groups.stream().mapToInt(ReportSeries.ErrorGroup::count).sum();
            out.append("<p><strong>").append(failed).append(" of ").append(data.records().size())
                    .append(" requests failed</strong>");
            if (e != null) out.append(" (error rate ").append(Html.esc(Html.percent(e.rate()))).append(")");
            out.append(". ").append(Html.esc(failureReading(groups, gone, earlier,
                    searchLevel != null && searchLevel.endedBySearch()))).append("</p>\n");
            out.append("<table class=\"errors\">\n<thead><tr><th>kind</th><th class=\"num\">code</th>"
                    + "<th class=\"num\">count</th><th class=\"num\">share</th><th>example messages</th></tr></thead>\n"
                    + "<tbody>\n");
            for (ReportSeries.ErrorGroup g : groups) {
                out.append("<tr><td class=\"mono\">").append(Html.esc(g.kind().name()))
                        .append(g.cause() == FailureCause.SERVER_UNAVAILABLE ? goneTag(gone, earlier) : "")
                        .append("</td><td class=\"num\">")
                        .append(g.code()).append("</td><td class=\"num\">").append(g.count())
                        .append("</td><td class=\"num\">").append(Html.esc(Html.percent((double) g.count() / failed)))
                        .append("</td><td>");
                for (String m : g.examples()) {
                    out.append("<code class=\"msg\">").append(Html.esc(m.isEmpty() ? "(empty message)"
                            : Html.truncate(m, Html.MAX_MESSAGE_CHARS))).append("</code>");
                }
                if (g.distinctMessages() > g.examples().size()) {
                    out.append("<span class=\"caption\">").append(g.distinctMessages() - g.examples().size())
                            .append(" more distinct messages</span>");
                }
                out.append("</td></tr>\n");
            }
            out.append("</tbody>\n</table>\n");
            if (e != null) {
                out.append("<p class=\"caption\">By kind: ").append(Html.esc(counts(e.byKind())))
                        .append(" \u00b7 by code: ").append(Html.esc(counts(e.byCode()))).append("</p>\n");
            }
        }
        out.append("</div>\n</section>\n");
    }

    /**
     * The error table's tag for the server going away: " (after successes)", or, when it went before any success
     * ({@link ServerGone#beforeAnySuccess}), " (before any success, after answering)".
     */
    static String goneTag(ServerGone gone) {
        return goneTag(gone, null);
    }

    /** As {@link #goneTag(ServerGone)}; " (gone since an earlier level)" for a level read with {@code earlier}. */
    static String goneTag(ServerGone gone, ServerGone.Earlier earlier) {
        if (gone == null && earlier != null) return " (gone since an earlier level)";
        return gone != null && gone.beforeAnySuccess() ? " (before any success, after answering)"
                : " (after successes)";
    }

    /**
     * What the failures say about the load, by what each kind points at ({@link FailureCause}, the split the
     * REQUESTS_FAILED warning makes): only capacity failures say the service did not hold it.
     *
     * @param gone the server going away ({@link ServerGone}, the warning's reading), null when no failure points at it
     */
    static String failureReading(List<ReportSeries.ErrorGroup> groups, ServerGone gone) {
        return failureReading(groups, gone, null);
    }

    /**
     * As {@link #failureReading(List, ServerGone)} for a sweep's level read with its earlier levels' answer
     * ({@code earlier}, null for none): with no reading of its own, its refused connections are worded as the
     * summary's warning and the sweep's verdict word them.
     */
    static String failureReading(List<ReportSeries.ErrorGroup> groups, ServerGone gone, ServerGone.Earlier earlier) {
        return failureReading(groups, gone, earlier, false);
    }

    /**
     * As above; {@code endedBySearch}: the run is a capacity search's level that the search ended (on its verdict or
     * at its limit), so its cancellations are the search's.
     */
    static String failureReading(List<ReportSeries.ErrorGroup> groups, ServerGone gone, ServerGone.Earlier earlier,
                                 boolean endedBySearch) {
        Map<FailureCause, Integer> by = new EnumMap<>(FailureCause.class);
        for (ReportSeries.ErrorGroup g : groups) by.merge(g.cause(), g.count(), Integer::sum);
        List<String> parts = new ArrayList<>();
        int capacity = by.getOrDefault(FailureCause.CAPACITY, 0);
        int configuration = by.getOrDefault(FailureCause.CONFIGURATION, 0);
        int other = by.getOrDefault(FailureCause.OTHER, 0);
        int cancelled = by.getOrDefault(FailureCause.CANCELLED, 0);
        int lost = by.getOrDefault(FailureCause.LOST, 0);
        int unavailable = by.getOrDefault(FailureCause.SERVER_UNAVAILABLE, 0);
        if (unavailable > 0) {
            // the words of the summary's warning: after how many successes, or before any (a first-wave kill)
            // a sweep's level refused from its start: the verdict's words, "the server was gone since concurrency 2"
            String when = gone == null && earlier != null ? ": " + earlier.words()
                    : gone == null ? " after requests of this run had succeeded"
                    : gone.beforeAnySuccess() ? " " + gone.when() + " (the first sent at " + gone.utcTime() + " UTC)"
                    : " after requests of this run had succeeded (the first sent at " + gone.utcTime() + " UTC, "
                    + gone.when() + ")";
            parts.add(unavailable + (unavailable == 1 ? " points" : " point") + " at the server going away "
                    + "(connections refused" + when + ": a restart, a crash, an out-of-memory kill): the URL is "
                    + "right; check the server's logs.");
        }
        if (capacity > 0) {
            // a connection closed mid-response is also what a server that stops (crashes, restarts) leaves, and an
            // error event after tokens a server that failed while serving: the warning's words for both
            boolean dropped = groups.stream().anyMatch(g -> g.cause() == FailureCause.CAPACITY
                    && g.kind() == FailureKind.CONNECTION_CLOSED);
            boolean streamErrors = groups.stream().anyMatch(g -> g.cause() == FailureCause.CAPACITY
                    && g.kind() == FailureKind.ERROR_IN_STREAM);
            parts.add(capacity + (capacity == 1 ? " points" : " point") + " at capacity ("
                    + FailureCause.CAPACITY_SIGNS + "): the service did not hold this load"
                    + RunWarnings.whileAnswering(dropped, streamErrors));
        }
        if (configuration > 0) {
            parts.add(configuration + (configuration == 1 ? " points" : " point") + " at the configuration (a 4xx "
                    + "other than 408/429, a refused or failed connection): the requests were refused, which says "
                    + "nothing about the load; check the API key, model id and base URL.");
        }
        if (other > 0) {
            parts.add(other + (other == 1 ? " points" : " point") + " at neither (malformed or cut-short responses, "
                    + "errors without a status code, client errors): read their messages.");
        }
        if (lost > 0) {
            parts.add(lost + (lost == 1 ? " was" : " were") + " lost with a load worker that left the cluster: no "
                    + "fault of the server's.");
        }
        if (cancelled > 0) {
            parts.add(cancelled + (cancelled == 1 ? " was" : " were") + " cancelled in flight when "
                    + (endedBySearch ? "the capacity search ended the level"
                    : "the run ended") + ": "
                    + (cancelled == groups.stream().mapToInt(ReportSeries.ErrorGroup::count).sum()
                    ? "they say nothing about whether the service held this load."
                    : "those say nothing about the load."));
        }
        return String.join(" ", parts);
    }

    private static String counts(Map<String, Integer> map) {
        if (map == null || map.isEmpty()) return "-";
        List<String> parts = new ArrayList<>();
        map.forEach((k, v) -> parts.add(k + " \u00d7 " + v));
        return String.join(", ", parts);
    }

    // ---------------------------------------------------------------- footer

    private void footer() {
        SummaryDocument.StatisticsJson st = summary.statistics();
        out.append("<footer id=\"method\">\n<h2>Method</h2>\n<ul>\n");
        if (st != null) {
            li("Population: " + st.population() + ".");
            li("Percentiles: " + st.percentileMethod() + (st.significantValueDigits() == null ? "." : " ("
                    + st.significantValueDigits() + " significant digits, lowest discernible "
                    + st.lowestDiscernibleNs() + " ns)."));
            li("Standard deviation: " + st.stddev() + "; mean confidence interval: " + st.meanConfidenceInterval()
                    + " at " + Html.fixed(100 * st.meanConfidenceLevel(), 0) + " %.");
        }
        li("TTFT: send to the first event with non-empty content. E2E: send to the end of the response. Latencies "
                + "are service times, from the actual send.");
        li("Output tokens/s over time: each successful request's output tokens are placed at its content events' "
                + "arrival times, each event's share in proportion to the tokens it carried (split evenly over the "
                + "events when those were not counted), or spread evenly from first token to end when event times "
                + "are unknown, then summed per bucket.");
        li("The table and key numbers are the summary file's; the charts are computed from the " + data.records().size()
                + " records of " + data.source().description() + ".");
        li("This page is self-contained: no scripts, no fonts or images from elsewhere, no links to other sites.");
        out.append("</ul>\n<p>Generated by llmperf4j ").append(Html.esc(toolVersion())).append(".</p>\n</footer>\n");
    }

    private void li(String text) {
        out.append("<li>").append(Html.esc(text)).append("</li>\n");
    }

    private String toolVersion() {
        return summary.tool() == null || summary.tool().version() == null ? "" : summary.tool().version();
    }

    /**
     * The tokenizer, or both when a replayed manifest's input counts are another tokenizer's than the run's output
     * counts ({@code settings.input_tokens_tokenizer}): a reader comparing token figures needs to know which counted
     * which.
     */
    static String tokenizerWords(SummaryDocument.SettingsJson s) {
        if (s.inputTokensTokenizer() == null || s.inputTokensTokenizer().equals(s.tokenizer())) return s.tokenizer();
        return "input tokens counted with " + s.inputTokensTokenizer() + " (the replayed manifest's counts), output "
                + "tokens with " + s.tokenizer();
    }
}
