package io.llmperf4j.run;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.metrics.DeliveredTokens;
import io.llmperf4j.report.metrics.RunWarnings;
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
 * its size, never left silent (QA: 1,140 generation tokens reported for 1,380, the gap's 240 unsaid); that warning
 * names the failed scrape behind it, and replaces the summarizer's words on the same edge (one warning per cause).
 * The client's output and prompt tokens over the span, with the bracket the scrapes' exchanges leave, are handed on
 * for {@link RunWarnings#besideServerCounts} to judge.
 */
final class ServerCountsBesideClient {

    private static final long NANOS_PER_MILLI = 1_000_000L;
    /** The window's edges are widened as the delivered tokens' are: its start is known to the millisecond. */
    private static final long EDGE_NANOS = 2 * NANOS_PER_MILLI;
    /** A gap whose tokens are at most this share of the window's is said on the line alone, not warned of. */
    static final double MATERIAL_SHARE = 0.01;
    /** The coverage warning's first words, by which the failed scrapes it names are left out of the timeline's. */
    static final String COVERAGE = "the server's counters cover ";

    /** The summary with the client's figures, and the counts for the run's warnings (null when not compared). */
    record Beside(ServerSideSummary summary, RunWarnings.ServerTokenCounts counts) {
    }

    private ServerCountsBesideClient() {
    }

    /**
     * {@code server} with the client's figures over its counters' span, and a warning when the rest held any, naming
     * {@code edgeFailure} (why a scrape at an edge failed; null when none did); and the counts the run's
     * SERVER_TOKENS_DIFFER judges (null when there is no counted span, or after a counter reset).
     */
    static Beside compare(ServerSideSummary server, BenchmarkRun run, List<RequestRecord> warmup,
                          TokenCounting counting, String edgeFailure) {
        if (server == null || server.countedFromS() == null || server.countedToS() == null) {
            return new Beside(server, null);
        }
        long windowStart = run.startEpochMillis() * NANOS_PER_MILLI;
        long windowEnd = windowStart + run.durationNanos();
        long from = windowStart + Math.round(server.countedFromS() * 1e9);
        long to = windowStart + Math.round(server.countedToS() * 1e9);
        // an edge the counters share with the window is widened as the window's is
        boolean sharedStart = from - windowStart <= ServerSideSummarizer.EDGE_SLACK_NANOS;
        boolean sharedEnd = windowEnd - to <= ServerSideSummarizer.EDGE_SLACK_NANOS;
        long spanFrom = sharedStart ? windowStart - EDGE_NANOS : from;
        long spanTo = sharedEnd ? windowEnd + EDGE_NANOS : to;
        // the server read its counters at some instant inside each edge scrape's exchange: the bracket the client's
        // figures may lie in. An edge it shares with the window had nothing running beyond it, but for a warmup's
        // opening: its requests ran across it, and a count from up to the slack into the window reads as from 0
        long openHalf = sharedStart && warmup.isEmpty() ? 0 : halfNanos(server.openingScrapeS())
                + (sharedStart ? ServerSideSummarizer.EDGE_SLACK_NANOS + EDGE_NANOS : 0);
        long closeHalf = sharedEnd ? 0 : halfNanos(server.closingScrapeS());
        List<RequestRecord> all = new ArrayList<>(run.records());
        all.addAll(warmup);
        double inSpan = DeliveredTokens.between(run, warmup, counting, spanFrom, spanTo);
        double inner = DeliveredTokens.between(run, warmup, counting, spanFrom + openHalf,
                Math.max(spanFrom + openHalf, spanTo - closeHalf));
        double outer = DeliveredTokens.between(run, warmup, counting, spanFrom - openHalf, spanTo + closeHalf);
        double inWindow = DeliveredTokens.between(run, warmup, counting, windowStart - EDGE_NANOS,
                windowEnd + EDGE_NANOS);
        // the counters start at the scrape asked for at the window's opening unless a scrape there failed (the
        // summarizer then says the start was not read): a request that ended before that scrape was answered (the
        // warmup request whose end freed the slot for the first measured send) is in its baseline, not a miss
        boolean openingRead = !sharedStart
                && server.warnings().stream().noneMatch(ServerSideSummarizer::isStartEdgeWarning);
        long baselineAnswered = openingRead ? from + halfNanos(server.openingScrapeS()) : Long.MIN_VALUE;
        int endedInSpan = 0;
        int warmupEndedInSpan = 0;
        int missedEnded = 0;
        int events = 0;
        boolean anyDelivered = false;
        boolean allByUsage = true;
        for (int i = 0; i < all.size(); i++) {
            RequestRecord r = all.get(i);
            long send = r.startEpochMicros() * 1_000L;
            long end = send + r.e2eNanos();
            if (end >= spanFrom && end <= spanTo) {
                endedInSpan++;
                if (i >= run.records().size()) warmupEndedInSpan++;
            } else if (end >= windowStart - EDGE_NANOS && end <= windowEnd + EDGE_NANOS && end >= baselineAnswered) {
                missedEnded++;
            }
            int eventsInSpan = 0;
            for (long offset : r.contentEventNanos()) {
                if (send + offset >= spanFrom && send + offset <= spanTo) eventsInSpan++;
            }
            events += eventsInSpan;
            boolean delivered = eventsInSpan > 0 || (r.contentEventNanos().length == 0 && end >= spanFrom
                    && end <= spanTo && (r.succeeded() || OutputTokenPolicy.serverOutputTokens(r).isPresent()));
            if (delivered) {
                anyDelivered = true;
                if (OutputTokenPolicy.serverOutputTokens(r).isEmpty()) allByUsage = false;
            }
        }
        Prompts prompts = Prompts.between(all, spanFrom, spanTo, openHalf, closeHalf);
        double seconds = (to - from) / 1e9;
        double missed = Math.max(0, inWindow - inSpan);
        ServerSideSummary.ClientSameSpan client = new ServerSideSummary.ClientSameSpan(inSpan,
                seconds > 0 ? inSpan / seconds : null, endedInSpan, warmupEndedInSpan, tidy(missed), missedEnded,
                events, prompts.counted() ? prompts.mid() : null);
        boolean material = missed > MATERIAL_SHARE * inWindow || missedEnded > 0;
        // the client's figures say what an edge no scrape read cost: the summarizer's words on it are left out
        List<String> warnings = new ArrayList<>(server.warnings().stream()
                .filter(w -> !ServerSideSummarizer.isEdgeWarning(w)).toList());
        if (material) warnings.add(warning(server, client, inWindow, missedEnded, edgeFailure));
        // after a counter reset the counts are a lower bound, which the reset's own warning says: not compared
        RunWarnings.ServerTokenCounts counts = server.countersReset() ? null : new RunWarnings.ServerTokenCounts(
                server.generationTokens() == null ? null : server.generationTokens().doubleValue(), inner, inSpan,
                outer, events, anyDelivered && allByUsage, server.model() == null,
                server.promptTokens() == null ? null : server.promptTokens().doubleValue(),
                prompts.counted() ? prompts.low() : null, prompts.counted() ? prompts.mid() : null,
                prompts.counted() ? prompts.high() : null, prompts.allByUsage());
        return new Beside(server.withClient(client, warnings), counts);
    }

    private static long halfNanos(Double seconds) {
        return seconds == null ? 0 : Math.round(seconds * 1e9 / 2);
    }

    /**
     * The input tokens of the requests the server prefilled in a span: it counts a prompt at some instant between
     * the request's send and its first token (vLLM when it produces that token, the simulator when a slot takes the
     * request), so the client sets beside the counter those whose first token came in the span ({@code mid}), at
     * least those whose send and first token both lie inside it, the scrapes' exchanges taken off ({@code low}),
     * and at most those whose send-to-first-token overlaps it, the exchanges added ({@code high}). A request that
     * got neither a token nor a successful answer may have been prefilled before it failed: in {@code high} alone.
     */
    private record Prompts(long low, long mid, long high, boolean counted, boolean allByUsage) {

        static Prompts between(List<RequestRecord> records, long from, long to, long openHalf, long closeHalf) {
            long low = 0;
            long mid = 0;
            long high = 0;
            boolean counted = false;
            boolean byUsage = true;
            for (RequestRecord r : records) {
                long send = r.startEpochMicros() * 1_000L;
                long first = firstTokenNanos(r);
                int input = r.usagePromptTokens() != null ? r.usagePromptTokens() : Math.max(0, r.numberInputTokens());
                if (first < 0) {
                    // failed before a token: the server may have prefilled it anyway (an error after prefill), at
                    // most by its end, so it widens the upper bound alone
                    if (send <= to + closeHalf && send + r.e2eNanos() >= from - openHalf) high += input;
                    continue;
                }
                long prefilled = send + first;
                if (send >= from + openHalf && prefilled <= to - closeHalf) low += input;
                if (prefilled >= from && prefilled <= to) {
                    mid += input;
                    counted = true;
                    if (r.usagePromptTokens() == null) byUsage = false;
                }
                if (send <= to + closeHalf && prefilled >= from - openHalf) high += input;
            }
            return new Prompts(low, mid, high, counted, counted && byUsage);
        }

        /** Send to the request's first token (content or reasoning), else to its end when it succeeded; or -1. */
        private static long firstTokenNanos(RequestRecord r) {
            long first = r.ttftNanos() >= 0 && r.contentEventNanos().length > 0 ? r.contentEventNanos()[0] : -1;
            if (r.firstReasoningNanos() >= 0 && (first < 0 || r.firstReasoningNanos() < first)) {
                first = r.firstReasoningNanos();
            }
            if (first < 0 && r.succeeded()) first = r.e2eNanos();
            return first;
        }
    }

    private static String warning(ServerSideSummary s, ServerSideSummary.ClientSameSpan c, double inWindow,
                                  int missedEnded, String edgeFailure) {
        return String.format(Locale.ROOT, COVERAGE + "%.2f s of the %.2f s measured window (from "
                        + "%.2f s to %.2f s%s): in the rest the client received %.0f tokens (%.1f %% of the %.0f "
                        + "delivered in the window) and %d %s ended, which the server's generation_tokens, "
                        + "prompt_tokens and requests_finished leave out; over the same span as the counters the "
                        + "client received %.0f tokens and %d requests ended (client_same_span)",
                s.countedToS() - s.countedFromS(), s.windowS(), s.countedFromS(), s.countedToS(),
                edgeFailure == null ? "" : "; " + edgeFailure,
                c.missedOutputTokens(), inWindow > 0 ? 100 * c.missedOutputTokens() / inWindow : 0, inWindow,
                missedEnded, missedEnded == 1 ? "request" : "requests", c.outputTokens(), c.requestsEnded());
    }

    private static double tidy(double v) {
        return Math.round(v * 1e6) / 1e6;
    }
}
