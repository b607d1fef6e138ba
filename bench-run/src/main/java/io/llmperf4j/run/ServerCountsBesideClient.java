package io.llmperf4j.run;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.metrics.DeliveredTokens;
import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.servermetrics.summary.ServerSideSummarizer;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Sets beside the server's counters what the client saw between the same two instants (every request then in
 * flight, the warmup's too, as the counters count them), and what it saw in the part of the window they miss: a
 * baseline read a moment after the window opened (a warmup still running then), a failed scrape at an edge. The
 * client's figures say how far the server's can be off, so a gap that held tokens or ended requests is warned of with
 * its size, never left silent (QA: 1,140 generation tokens reported for 1,380, the gap's 240 unsaid).
 */
final class ServerCountsBesideClient {

    private static final long NANOS_PER_MILLI = 1_000_000L;
    /** The window's edges are widened as the delivered tokens' are: its start is known to the millisecond. */
    private static final long EDGE_NANOS = 2 * NANOS_PER_MILLI;
    /** A gap whose tokens are at most this share of the window's is said on the line alone, not warned of. */
    static final double MATERIAL_SHARE = 0.01;

    private ServerCountsBesideClient() {
    }

    /** {@code server} with the client's figures over its counters' span, and a warning when the rest held any. */
    static ServerSideSummary attach(ServerSideSummary server, BenchmarkRun run, List<RequestRecord> warmup,
                                    TokenCounting counting) {
        if (server == null || server.countedFromS() == null || server.countedToS() == null) return server;
        long windowStart = run.startEpochMillis() * NANOS_PER_MILLI;
        long windowEnd = windowStart + run.durationNanos();
        long from = windowStart + Math.round(server.countedFromS() * 1e9);
        long to = windowStart + Math.round(server.countedToS() * 1e9);
        // an edge the counters share with the window is widened as the window's is
        long spanFrom = from - windowStart <= ServerSideSummarizer.EDGE_SLACK_NANOS ? windowStart - EDGE_NANOS : from;
        long spanTo = windowEnd - to <= ServerSideSummarizer.EDGE_SLACK_NANOS ? windowEnd + EDGE_NANOS : to;
        double inSpan = DeliveredTokens.between(run, warmup, counting, spanFrom, spanTo);
        double inWindow = DeliveredTokens.between(run, warmup, counting, windowStart - EDGE_NANOS,
                windowEnd + EDGE_NANOS);
        int endedInSpan = 0;
        int warmupEndedInSpan = 0;
        int endedInWindow = 0;
        List<RequestRecord> all = new ArrayList<>(run.records());
        all.addAll(warmup);
        for (int i = 0; i < all.size(); i++) {
            RequestRecord r = all.get(i);
            long end = r.startEpochMicros() * 1_000L + r.e2eNanos();
            if (end >= spanFrom && end <= spanTo) {
                endedInSpan++;
                if (i >= run.records().size()) warmupEndedInSpan++;
            }
            if (end >= windowStart - EDGE_NANOS && end <= windowEnd + EDGE_NANOS) endedInWindow++;
        }
        double seconds = (to - from) / 1e9;
        double missed = Math.max(0, inWindow - inSpan);
        int missedEnded = Math.max(0, endedInWindow - endedInSpan);
        ServerSideSummary.ClientSameSpan client = new ServerSideSummary.ClientSameSpan(inSpan,
                seconds > 0 ? inSpan / seconds : null, endedInSpan, warmupEndedInSpan, tidy(missed), missedEnded);
        boolean material = missed > MATERIAL_SHARE * inWindow || missedEnded > 0;
        return server.withClient(client, material ? warning(server, client, inWindow, missedEnded) : null);
    }

    private static String warning(ServerSideSummary s, ServerSideSummary.ClientSameSpan c, double inWindow,
                                  int missedEnded) {
        return String.format(Locale.ROOT, "the server's counters cover %.2f s of the %.2f s measured window (from "
                        + "%.2f s to %.2f s): in the rest the client received %.0f tokens (%.1f %% of the %.0f "
                        + "delivered in the window) and %d %s ended, which the server's generation_tokens, "
                        + "prompt_tokens and requests_finished leave out; over the same span as the counters the "
                        + "client received %.0f tokens and %d requests ended (client_same_span)",
                s.countedToS() - s.countedFromS(), s.windowS(), s.countedFromS(), s.countedToS(),
                c.missedOutputTokens(), inWindow > 0 ? 100 * c.missedOutputTokens() / inWindow : 0, inWindow,
                missedEnded, missedEnded == 1 ? "request" : "requests", c.outputTokens(), c.requestsEnded());
    }

    private static double tidy(double v) {
        return Math.round(v * 1e6) / 1e6;
    }
}
