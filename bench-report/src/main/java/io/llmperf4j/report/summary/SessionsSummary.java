package io.llmperf4j.report.summary;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.report.stats.PandasStats;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The summary's {@code sessions} section: what multi-turn sessions and prefix caching did. Latencies and input
 * tokens by turn index (turn 0 is a session's first request), and the server-side prefix-cache hit rate: cached
 * prompt tokens over prompt tokens, from {@code usage.prompt_tokens_details.cached_tokens}. vLLM omits the count
 * when it is 0, so once any request of the run reported one, a successful request with usage but no count counts
 * as 0 cached tokens; when none did, the rate is null (the server does not say).
 *
 * @param prefixCacheHitRate cached / prompt tokens of successful requests with server usage, or null
 * @param cachedTokens       sum of the cached prompt tokens reported (0 when none was)
 * @param promptTokens       sum of the server's prompt tokens of the successful requests with server usage, whether
 *                           or not any reported a cached count; null when none reported usage
 * @param sessions           distinct sessions among the recorded requests (0 without sessions)
 * @param byTurn             one row per turn index, ascending (empty without sessions)
 * @param turnsNotSent       a closed loop of sessions: the turns of sessions started and not ended that were never
 *                           sent when the run ended (its --timeout, a stop); null (absent) otherwise
 */
public record SessionsSummary(Double prefixCacheHitRate, long cachedTokens, Long promptTokens, int sessions,
                              List<TurnJson> byTurn,
                              @JsonInclude(JsonInclude.Include.NON_NULL) Integer turnsNotSent) {

    /** A section without a count of turns not sent. */
    public SessionsSummary(Double prefixCacheHitRate, long cachedTokens, Long promptTokens, int sessions,
                           List<TurnJson> byTurn) {
        this(prefixCacheHitRate, cachedTokens, promptTokens, sessions, byTurn, null);
    }

    /** The same section with the closed loop's count of turns not sent (null: none known). */
    public SessionsSummary withTurnsNotSent(Integer turns) {
        return new SessionsSummary(prefixCacheHitRate, cachedTokens, promptTokens, sessions, byTurn, turns);
    }

    /**
     * One turn index over every session: successful requests only. {@code itlMeanS} ({@code itl_mean_s}, the name
     * the schema keeps) is the mean of the requests' TPOT, exactly the summary's {@code tpot_ms} per request
     * ({@link RequestMetrics#tpotNanos()}: (E2E - TTFT) / (n - 1), n the output tokens as the run counts them,
     * server usage first), in seconds.
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record TurnJson(int turn, int requests, Double ttftMeanS, Double ttftP50S, Double ttftP90S,
                           Double itlMeanS, Double e2eMeanS, Double e2eP50S, Double e2eP90S, Double inputTokensMean) {
    }

    /**
     * The section for {@code records}, or null when they have no session and no cached-token count; {@code counting}
     * is the run's (the summary's TPOT counts output tokens with it).
     */
    public static SessionsSummary of(List<RequestRecord> records, TokenCounting counting) {
        boolean anySession = false;
        boolean anyCached = false;
        for (RequestRecord r : records) {
            anySession |= r.tags().sessionId() != null;
            anyCached |= r.tags().cachedTokens() != null;
        }
        if (!anySession && !anyCached) return null;
        long cached = 0;
        long prompt = 0;
        boolean anyUsage = false;
        Map<Integer, List<RequestRecord>> turns = new TreeMap<>();
        java.util.Set<String> sessionIds = new java.util.HashSet<>();
        for (RequestRecord r : records) {
            if (r.tags().sessionId() != null) sessionIds.add(r.tags().sessionId());
            if (!r.succeeded()) continue;
            if (r.usagePromptTokens() != null) { // the server's count, with or without a cached count beside it
                anyUsage = true;
                prompt += r.usagePromptTokens();
                cached += r.tags().cachedTokens() == null ? 0 : r.tags().cachedTokens();
            }
            if (r.tags().sessionId() != null && r.tags().turn() >= 0) {
                turns.computeIfAbsent(r.tags().turn(), t -> new ArrayList<>()).add(r);
            }
        }
        List<TurnJson> byTurn = new ArrayList<>();
        turns.forEach((turn, rs) -> byTurn.add(turn(turn, rs, counting)));
        Double rate = anyCached && prompt > 0 ? (double) cached / prompt : null;
        return new SessionsSummary(rate, cached, anyUsage ? prompt : null, sessionIds.size(), byTurn);
    }

    private static TurnJson turn(int turn, List<RequestRecord> rs, TokenCounting counting) {
        double[] ttft = seconds(rs.stream().mapToLong(RequestRecord::ttftNanos));
        double[] e2e = seconds(rs.stream().mapToLong(RequestRecord::e2eNanos));
        double[] tpot = rs.stream().map(r -> RequestMetrics.from(r, counting).tpotNanos())
                .filter(java.util.OptionalDouble::isPresent).mapToDouble(t -> t.getAsDouble() / 1e9).toArray();
        double[] input = rs.stream().mapToDouble(r -> r.usagePromptTokens() != null ? r.usagePromptTokens()
                : r.numberInputTokens()).toArray();
        return new TurnJson(turn, rs.size(), mean(ttft), q(ttft, 0.5), q(ttft, 0.9), mean(tpot), mean(e2e),
                q(e2e, 0.5), q(e2e, 0.9), mean(input));
    }

    private static double[] seconds(java.util.stream.LongStream nanos) {
        return nanos.filter(n -> n >= 0).mapToDouble(n -> n / 1e9).sorted().toArray();
    }

    private static Double mean(double[] v) {
        return v.length == 0 ? null : PandasStats.mean(v);
    }

    private static Double q(double[] sorted, double q) {
        if (sorted.length == 0) return null;
        double[] s = sorted.clone();
        Arrays.sort(s);
        return PandasStats.quantile(s, q);
    }

    /** The console line: sessions, mean TTFT by turn, the server's hit rate; null for no section. */
    static String consoleLine(SessionsSummary s) {
        if (s == null) return null;
        StringBuilder b = new StringBuilder();
        if (s.sessions() > 0) {
            b.append(s.sessions()).append(s.sessions() == 1 ? " session" : " sessions").append(", mean TTFT by turn");
            for (TurnJson t : s.byTurn()) {
                b.append(t.turn() == s.byTurn().get(0).turn() ? " " : " / ")
                        .append(t.ttftMeanS() == null ? "-" : String.format(Locale.ROOT, "%.3f", t.ttftMeanS()));
            }
            b.append(" s; ");
        }
        b.append("server prefix-cache hit rate ").append(s.prefixCacheHitRate() == null ? "not reported"
                : String.format(Locale.ROOT, "%.1f %% (%d of %d prompt tokens)", 100 * s.prefixCacheHitRate(),
                s.cachedTokens(), s.promptTokens()));
        return (s.sessions() > 0 ? "Sessions: " : "Prefix cache: ") + b + System.lineSeparator();
    }
}
