package io.llmperf4j.report.html;

import io.llmperf4j.report.metrics.Metric;
import io.llmperf4j.report.summary.SummaryDocument;
import io.llmperf4j.servermetrics.summary.ServerLatency;
import io.llmperf4j.servermetrics.summary.ServerSideSummarizer;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;
import io.llmperf4j.servermetrics.summary.ServerTimeSeries;
import io.llmperf4j.servermetrics.summary.TimedValue;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The report's server section (issue 19): the server's own running and waiting requests, KV-cache usage and
 * generation tokens/s (from its counter) on the same time axis as the client's tokens/s and requests in flight,
 * each beside the client's curve. A scrape's time is moved from the scrapes' axis ({@code time_s} of
 * {@code <base>_server_metrics.csv}, 0 at the level's start) to the page's by the summary's
 * {@code server.window_start_s} (where the measured window, the run's start, sits on the scrapes' axis).
 */
final class ServerCharts {

    private static final double NANOS_PER_SECOND = 1e9;
    /** The metadata key a run with warmup records it under ("4 requests, excluded from every result"). */
    private static final String WARMUP_METADATA = "llmperf4j_warmup";
    /** The warning raised when the server's token counters and the client's counts differ over the same span. */
    static final String TOKENS_DIFFER = "SERVER_TOKENS_DIFFER";

    private final SummaryDocument summary;
    private final ServerTimeSeries series;
    private final ServerMetricsTimeline timeline;
    private final Timeline frame;
    private final ReportSeries.TimeBuckets buckets;
    private final StringBuilder out;
    private final double shiftS;
    private final boolean aligned;

    ServerCharts(SummaryDocument summary, ServerMetricsTimeline timeline, Timeline frame,
                 ReportSeries.TimeBuckets buckets, StringBuilder out) {
        this.summary = summary;
        this.timeline = timeline;
        ServerSideSummary server = summary.server();
        // the series the summary's figures were read from: the run's model's where the server labels them by model
        this.series = ServerTimeSeries.of(timeline, server == null ? null : server.model());
        this.frame = frame;
        this.buckets = buckets;
        this.out = out;
        Double windowStart = server == null ? null : server.windowStartS();
        this.aligned = windowStart != null;
        this.shiftS = (aligned ? -windowStart : 0) + runStartOnPageS();
    }

    /** Where the run's start sits on the page's axis: 0, or later when a request was sent before it. */
    private double runStartOnPageS() {
        if (summary.run() == null || summary.run().startTime() == null) return 0;
        try {
            Instant start = Instant.parse(summary.run().startTime());
            long startNanos = start.getEpochSecond() * 1_000_000_000L + start.getNano();
            return (startNanos - frame.originEpochNanos()) / NANOS_PER_SECOND;
        } catch (DateTimeParseException e) {
            return 0;
        }
    }

    void render() {
        double extent = buckets.edgesSeconds()[buckets.edgesSeconds().length - 1];
        out.append("<section id=\"server\">\n<h2>Server</h2>\n");
        out.append("<p class=\"caption\">From the server's Prometheus metrics (")
                .append(Html.esc(series.engine() == null ? "no known engine" : series.engine())).append(", ");
        if (series.model() != null) {
            out.append("<span class=\"server-model\">model ").append(Html.esc(series.model()))
                    .append("'s series alone</span>, ");
        }
        out.append(timeline.successfulScrapes().size()).append(" scrapes");
        if (!series.gaps().isEmpty()) out.append(", ").append(series.gaps().size()).append(" failed: gaps");
        out.append("), on the client's time axis");
        out.append(aligned ? "." : " (placed by the level's start: this summary does not say where the measured "
                + "window starts, so warmup would shift them).");
        out.append(" Hover a point for its value.</p>\n");
        ServerSideSummary server = summary.server();
        if (server != null) figures(server);
        if (server != null) tokenCounts(server);
        if (server != null && server.peaksUnobserved()) {
            out.append("<p class=\"note server-peaks-unobserved\">Peak running and waiting requests: not observed ("
                    + Html.esc(server.unobservedPeaksReason()) + ").</p>\n");
        }
        if (server != null && !server.warnings().isEmpty()) {
            // the summary's server.warnings: figures that include other traffic, a counter reset, mixed buckets
            out.append("<div class=\"note server-warnings\"><strong>Server figures:</strong><ul>\n");
            for (String w : server.warnings()) {
                out.append("<li>").append(Html.esc(w)).append("</li>\n");
            }
            out.append("</ul></div>\n");
        }
        latencyTable();
        out.append("<div class=\"charts\">\n");
        if (series.engine() == null) {
            out.append("<p class=\"note\">The server serves none of the families llmperf4j knows (vLLM, SGLang, "
                    + "TGI); every sample is in the server metrics CSV.</p>\n");
        }
        double[] edges = buckets.edgesSeconds();
        double[] meanInFlight = stepValues(buckets.meanInFlight(), edges.length);
        if (!series.requestsRunning().isEmpty() || !series.requestsWaiting().isEmpty()) {
            SvgChart.Builder chart = SvgChart.builder("server-requests", "Server: requests running and waiting")
                    .x(SvgChart.Axis.linear("Time since run start", "s").withRange(0, extent))
                    .y(SvgChart.Axis.linear("Requests", "requests").includingZero())
                    .add(SvgChart.Series.step("client in flight (time-averaged)", Palette.GREY, edges, meanInFlight)
                            .asDashed().withClass("client-in-flight"));
            add(chart, series.requestsRunning(), "running", Palette.BLUE, "server-running", "%.0f running");
            add(chart, series.requestsWaiting(), "waiting", Palette.RED, "server-waiting", "%.0f waiting");
            card(chart, "The server's running and waiting requests at each scrape, beside the client's requests in "
                    + "flight. Waiting requests mean the server queues: TTFT grows with them.");
        }
        if (!series.kvCacheUsage().isEmpty()) {
            List<TimedValue> percent = series.kvCacheUsage().stream()
                    .map(v -> new TimedValue(v.timeS(), 100 * v.value())).toList();
            SvgChart.Builder chart = SvgChart.builder("server-kv-cache", "Server: KV-cache usage")
                    .x(SvgChart.Axis.linear("Time since run start", "s").withRange(0, extent))
                    .y(SvgChart.Axis.linear("KV-cache usage", "%").withRange(0, 100));
            add(chart, percent, "KV cache", Palette.PURPLE, "server-kv-cache", "%.1f %% of the KV cache in use");
            card(chart, "The fullest engine's KV-cache usage at each scrape. Near 100 % the server preempts or "
                    + "queues requests.");
        }
        if (!series.generationTokensPerS().isEmpty()) {
            double[] clientRate = stepValues(buckets.outputTokensPerSecond(), edges.length);
            SvgChart.Builder chart = SvgChart.builder("server-generation", "Server generation tok/s vs client output "
                            + "tok/s")
                    .x(SvgChart.Axis.linear("Time since run start", "s").withRange(0, extent))
                    .y(SvgChart.Axis.linear("Tokens per second", "tok/s").includingZero())
                    .add(SvgChart.Series.step("client output tok/s", Palette.GREY, edges, clientRate).asDashed()
                            .withClass("client-tokens-per-second"));
            add(chart, series.generationTokensPerS(), "server generation tok/s", Palette.GREEN, "server-generation",
                    "%.1f tok/s generated since the previous scrape");
            card(chart, "The server's generation counter as a rate between consecutive scrapes, beside the "
                    + "client's output tokens/s. A server ahead of the client means tokens wait in buffers or the "
                    + "network.");
        }
        out.append("</div>\n</section>\n");
    }

    /**
     * The server's TTFT, ITL and E2E percentiles (from its histograms) beside the client's, in ms. Each server
     * percentile carries its bucket: interpolated inside it, it can read above the client's while the true value is
     * below, so the caption claims a network and queueing share only where the server's is the lower.
     */
    private void latencyTable() {
        ServerSideSummary server = summary.server();
        if (server == null) return;
        out.append("<div class=\"card\" style=\"margin-bottom:12px\">\n<table class=\"server-latency\">\n<thead><tr>"
                + "<th>latency (ms)</th><th class=\"num\">client p50</th><th class=\"num\">server p50 (bucket)</th>"
                + "<th class=\"num\">client p90</th><th class=\"num\">server p90 (bucket)</th>"
                + "<th class=\"num\">client p99</th><th class=\"num\">server p99 (bucket)</th>"
                + "<th class=\"num\">server observations</th></tr></thead>\n<tbody>\n");
        int above = row("TTFT", Metric.TTFT, server.ttft());
        // TGI's figure is each request's mean time per token, beside the client's gaps between content events
        above += row(server.interTokenLatencyIsPerRequestMean() ? "ITL (server: per-request mean time per token)"
                : "ITL", Metric.ITL, server.interTokenLatency());
        above += row("E2E", Metric.E2E_LATENCY, server.e2eRequestLatency());
        out.append("</tbody>\n</table>\n<p class=\"caption\">Server percentiles: ")
                .append(Html.esc(server.quantileMethod() == null ? "from its histograms" : server.quantileMethod()))
                .append(". The true value lies anywhere in the bucket shown beside each. Where the server's is below "
                        + "the client's by more than its bucket's width, the difference is network, queueing before "
                        + "the engine and client overhead");
        if (above > 0) {
            out.append("; <span class=\"server-above-client\">").append(above)
                    .append(above == 1 ? " server percentile reads" : " server percentiles read")
                    .append(" above the client's (marked \u2191): the interpolation inside a wide bucket, not a "
                            + "negative network time</span>");
        }
        if (upperBounds > 0) {
            out.append("; <span class=\"server-upper-bound\">\u2264 marks an upper bound, not a measurement: "
                    + "the interpolation exceeded mean / (1 \u2212 q), which no more than a share 1 \u2212 q of "
                    + "durations can exceed (a wide first bucket)</span>");
        }
        out.append(".");
        observationsNote(server);
        out.append("</p>\n");
        deliveredLine(server);
        out.append("</div>\n");
    }

    /**
     * What the server's counters cover and what it sampled, in one line: the part of the window its counters span
     * (said only when it is not all of it), a reset, the prefix-cache hit rate, the gauges' peaks as the highest of
     * samples so far apart (a burst between two scrapes is not seen).
     */
    private void figures(ServerSideSummary server) {
        if (server.unknownEngine()) return;
        List<String> parts = new ArrayList<>();
        if (server.countersPartial(ServerSideSummarizer.EDGE_SLACK_NANOS / NANOS_PER_SECOND)) {
            parts.add("its counters cover " + Html.fixed(server.countedToS() - server.countedFromS(), 2) + " s of the "
                    + Html.fixed(server.windowS(), 2) + " s window (from " + Html.fixed(server.countedFromS(), 2)
                    + " s to " + Html.fixed(server.countedToS(), 2) + " s): its counts leave out the rest");
        }
        if (server.countersReset()) parts.add("a counter went back (a restart or reset): its counts are a lower bound");
        String edges = edgeScrapes(server);
        if (edges != null) parts.add(edges);
        if (server.prefixCacheHitRate() != null) {
            parts.add("prefix-cache hit rate " + Html.percent(server.prefixCacheHitRate()) + " (from its counters)");
        }
        if (!server.peaksUnobserved() && (server.peakRequestsRunning() != null
                || server.peakRequestsWaiting() != null)) {
            parts.add(server.peakWords() + ": running " + Html.fixed(server.peakRequestsRunning(), 0) + ", waiting "
                    + Html.fixed(server.peakRequestsWaiting(), 0) + (server.kvCacheNotANumber()
                    ? ", KV cache not a number (its gauge read NaN)" : server.peakKvCacheUsage() == null ? ""
                    : ", KV cache " + Html.percent(server.peakKvCacheUsage())));
        }
        if (!server.missingFamilies().isEmpty()) {
            parts.add("not served: " + String.join(", ", server.missingFamilies()));
        }
        if (parts.isEmpty()) return;
        out.append("<p class=\"caption server-figures\">Server: ").append(Html.esc(String.join("; ", parts)))
                .append(".</p>\n");
    }

    /**
     * How long the exchanges of the two scrapes the counters run between took ("the scrapes its counters run between
     * took 3.2 ms and 2.9 ms"): the server read its counters at some instant inside each, so its counts are as sharp
     * as these; null for a summary from before they were recorded.
     */
    static String edgeScrapes(ServerSideSummary server) {
        if (server.openingScrapeS() == null && server.closingScrapeS() == null) return null;
        return "the scrapes its counters run between took " + scrapeMs(server.openingScrapeS()) + " (opening) and "
                + scrapeMs(server.closingScrapeS()) + " (closing): it read its counters at some instant inside each";
    }

    private static String scrapeMs(Double seconds) {
        return seconds == null ? "not known" : Html.fixed(seconds * 1000, 1) + " ms";
    }

    /**
     * The server's token counters beside the client's counts over the same span, the comparison SERVER_TOKENS_DIFFER
     * judges: output tokens by its generation counter against the tokens the client received (in so many content
     * events), prompt tokens against the input tokens of the requests whose first token came in the span. Said when
     * the summary records the client's same-span counts of that comparison (a summary from before it: nothing), and
     * that they differ when the warning was raised.
     */
    private void tokenCounts(ServerSideSummary server) {
        ServerSideSummary.ClientSameSpan client = server.clientSameSpan();
        if (server.unknownEngine() || client == null || client.contentEvents() == null && client.promptTokens() == null) {
            return;
        }
        List<String> parts = new java.util.ArrayList<>();
        if (server.generationTokens() != null) {
            parts.add("output tokens " + server.generationTokens() + " by its generation counter, "
                    + Html.fixed(client.outputTokens(), 0) + " received by the client"
                    + (client.contentEvents() == null ? "" : " in " + client.contentEvents() + " content events"));
        }
        if (server.promptTokens() != null && client.promptTokens() != null) {
            parts.add("prompt tokens " + server.promptTokens() + " by its counter, " + client.promptTokens()
                    + " by the client (usage where sent, else its tokenizer)");
        }
        if (parts.isEmpty()) return;
        out.append("<p class=\"caption server-token-counts\">Server and client over the counters' span: ")
                .append(Html.esc(String.join("; ", parts))).append('.');
        if (summary.warnings() != null && summary.warnings().stream()
                .anyMatch(w -> TOKENS_DIFFER.equals(w.code()))) {
            out.append(" <strong class=\"server-tokens-differ\">They differ beyond what the scrapes' exchanges "
                    + "allow (" + TOKENS_DIFFER + "): the warnings above say why.</strong>");
        }
        out.append("</p>\n");
    }

    /**
     * Why the server observed a different number of requests than the client recorded: its histograms count every
     * request it timed between the two scrapes its counts run between, whatever the client did with it, the
     * warmup's requests timed then among them; the client's same-span count is set beside it where known.
     */
    private void observationsNote(ServerSideSummary server) {
        if (summary.run() == null || server.ttft() == null && server.e2eRequestLatency() == null) return;
        long observed = server.ttft() != null ? server.ttft().observations()
                : server.e2eRequestLatency().observations();
        int recorded = summary.run().requestsRecorded();
        if (observed == recorded) return;
        out.append(" <span class=\"server-observations\">The server observed ").append(observed)
                .append(observed == 1 ? " request" : " requests").append(", the client recorded ").append(recorded)
                .append(": the server's histograms count every request it timed between the two scrapes its counts "
                        + "run between");
        if (server.scrapeSpanS() != null && server.windowS() != null) {
            out.append(" (").append(Html.fixed(server.scrapeSpanS(), 2)).append(" s against the window's ")
                    .append(Html.fixed(server.windowS(), 2)).append(" s)");
        }
        ServerSideSummary.ClientSameSpan client = server.clientSameSpan();
        if (client != null) {
            out.append("; at the client, ").append(client.requestsEnded())
                    .append(client.requestsEnded() == 1 ? " request" : " requests").append(" ended in that span");
            if (client.warmupRequestsEnded() > 0) {
                out.append(", ").append(client.warmupRequestsEnded()).append(" of them warmup requests (")
                        .append(Html.esc(warmup() == null ? "the warmup" : warmup())).append(")");
            }
            if (client.missedRequestsEnded() > 0) {
                out.append(", and ").append(client.missedRequestsEnded()).append(" inside the window before or after "
                        + "it, which the server's counts leave out");
            }
        }
        out.append("; the client's columns are its successful requests alone.</span>");
    }

    /**
     * The server's generation rate beside the client's two: llmperf's (successful requests' tokens) and every token
     * delivered inside the window, the figure comparable with the server's counter.
     */
    private void deliveredLine(ServerSideSummary server) {
        SummaryDocument.ThroughputJson t = summary.throughput();
        if (t == null || server.generationTokensPerS() == null) return;
        out.append("<p class=\"caption server-throughput\">Server: <strong>")
                .append(Html.fixed(server.generationTokensPerS(), 1)).append("</strong> tok/s generated");
        if (server.generationTokens() != null) out.append(" (").append(server.generationTokens()).append(" tokens)");
        if (t.outputTokensPerSDelivered() != null) {
            out.append(" \u00b7 client, every token delivered inside the window: <strong class=\"delivered\">")
                    .append(Html.fixed(t.outputTokensPerSDelivered(), 1)).append("</strong> tok/s (")
                    .append(Html.fixed(t.outputTokensDelivered(), 0)).append(" tokens");
            if (t.outputTokensDeliveredByFailed() != null && t.outputTokensDeliveredByFailed() > 0) {
                out.append(", ").append(Html.fixed(t.outputTokensDeliveredByFailed(), 0))
                        .append(" of them from requests cancelled or failed after their content began");
            }
            out.append(")");
        }
        ServerSideSummary.ClientSameSpan client = server.clientSameSpan();
        if (client != null && server.countersPartial(ServerSideSummarizer.EDGE_SLACK_NANOS / NANOS_PER_SECOND)
                && client.outputTokensPerS() != null) {
            out.append(" \u00b7 client, over the same span as the server's counters: <strong class=\"same-span\">")
                    .append(Html.fixed(client.outputTokensPerS(), 1)).append("</strong> tok/s (")
                    .append(Html.fixed(client.outputTokens(), 0)).append(" tokens; ")
                    .append(Html.fixed(client.missedOutputTokens(), 0)).append(" more in the rest of the window)");
        }
        out.append(" \u00b7 llmperf's output throughput: ").append(Html.fixed(t.outputTokensPerS(), 1))
                .append(" tok/s. llmperf's counts the successful requests' tokens alone over the same window");
        boolean failedDelivered = t.outputTokensDeliveredByFailed() != null && t.outputTokensDeliveredByFailed() > 0;
        out.append(failedDelivered ? ", so it reads lower here, where requests were cancelled or failed mid-stream"
                : "").append("; the delivered figure counts what arrived, as the server's counter does.");
        String warmup = warmup();
        if (warmup != null && server.countedFromS() != null) {
            out.append(" With a warmup (").append(Html.esc(warmup)).append(") the server's counters hold what the "
                    + "warmup's requests still running in their span generated; the delivered figure counts it too, "
                    + "llmperf's leaves it out.");
        }
        out.append("</p>\n");
    }

    /** The run's warmup in words, from its metadata ("4 requests, excluded from every result"); null without. */
    private String warmup() {
        String w = summary.settings() == null || summary.settings().metadata() == null ? null
                : summary.settings().metadata().get(WARMUP_METADATA);
        return w == null || w.isBlank() ? null : w;
    }

    /** One latency row; returns how many of its server percentiles read above the client's. */
    private static final String[] QUANTILES = {"p50", "p90", "p99"};
    /** The server percentiles the latency table marks as upper bounds (Markov's cap), for its caption. */
    private int upperBounds;

    private int row(String name, Metric metric, ServerLatency server) {
        SummaryDocument.StatsJson client = summary.metrics().get(metric.jsonKey());
        out.append("<tr data-metric=\"").append(metric.jsonKey()).append("\"><td>").append(Html.esc(name))
                .append("</td>");
        double[] clientMs = {client == null || client.p50() == null ? Double.NaN : client.p50(),
            client == null || client.p90() == null ? Double.NaN : client.p90(),
            client == null || client.p99() == null ? Double.NaN : client.p99()};
        Double[] serverS = server == null ? new Double[3] : new Double[] {server.p50S(), server.p90S(), server.p99S()};
        ServerLatency.Bucket[] buckets = server == null ? new ServerLatency.Bucket[3]
                : new ServerLatency.Bucket[] {server.p50Bucket(), server.p90Bucket(), server.p99Bucket()};
        int above = 0;
        for (int i = 0; i < 3; i++) {
            boolean higher = serverS[i] != null && serverS[i] * 1000 > clientMs[i];
            if (higher) above++;
            out.append("<td class=\"num\">").append(Html.fixed(clientMs[i], 2)).append("</td><td class=\"num server")
                    .append(higher ? " above-client" : "").append("\">");
            if (serverS[i] == null) {
                out.append("-");
            } else {
                // Markov's cap, not an interpolation: the true value is at most this
                boolean bound = server.isUpperBound(QUANTILES[i]);
                if (bound) upperBounds++;
                out.append(bound ? "\u2264 " : "").append(Html.fixed(serverS[i] * 1000, 2))
                        .append(higher ? " \u2191" : "");
                if (buckets[i] != null) {
                    out.append(" <span class=\"bucket\">").append(bucket(buckets[i])).append("</span>");
                }
            }
            out.append("</td>");
        }
        out.append("<td class=\"num\">").append(server == null ? "-" : Long.toString(server.observations()))
                .append("</td></tr>\n");
        return above;
    }

    /** "(bucket 40\u201360 ms)", "(bucket above 2500 ms)" for the +Inf bucket. */
    static String bucket(ServerLatency.Bucket b) {
        String lower = bound(b.lowerS());
        if (b.upperS() == null) return "(bucket above " + lower + " ms)";
        return "(bucket " + lower + "\u2013" + bound(b.upperS()) + " ms)";
    }

    /** A bucket bound in ms as the server wrote it: 0.04 s → "40", 0.0025 s → "2.5". */
    private static String bound(double seconds) {
        return new BigDecimal(seconds * 1000).round(new MathContext(6)).stripTrailingZeros().toPlainString();
    }

    private void add(SvgChart.Builder chart, List<TimedValue> values, String name, String color, String cssClass,
                     String titleFormat) {
        double[] xs = new double[values.size()];
        double[] ys = new double[values.size()];
        String[] titles = new String[values.size()];
        for (int i = 0; i < xs.length; i++) {
            xs[i] = values.get(i).timeS() + shiftS;
            ys[i] = values.get(i).value();
            titles[i] = String.format(Locale.ROOT, "%.2f s: " + titleFormat, xs[i], ys[i]);
        }
        chart.add(SvgChart.Series.lineMarkers(name, color, xs, ys).withTitles(titles).withClass(cssClass));
    }

    /** Bucket values as a step line over {@code n} edges (the last edge repeats the last bucket). */
    private static double[] stepValues(double[] perBucket, int n) {
        double[] ys = new double[n];
        System.arraycopy(perBucket, 0, ys, 0, Math.min(perBucket.length, n));
        if (perBucket.length > 0 && n > perBucket.length) ys[n - 1] = perBucket[perBucket.length - 1];
        return ys;
    }

    private void card(SvgChart.Builder chart, String caption) {
        out.append("<div class=\"card\">").append(chart.build().toSvg()).append("<p class=\"caption\">")
                .append(Html.esc(caption)).append("</p></div>\n");
    }
}
