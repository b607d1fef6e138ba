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
 * @param sessions           the workload's sessions among the recorded requests (0 without sessions): a failed
 *                           session's rest ({@code s0~t2}, sent without history) counts in its session, not as one
 * @param byTurn             one row per turn index, ascending (empty without sessions): a turn's place in its session
 *                           as the workload defined it (a rest's turns keep theirs, though sent without history)
 * @param turnsNotSent       a closed loop of sessions: the turns of sessions started and not ended that were never
 *                           sent when the run ended (its --timeout, a stop); null (absent) otherwise
 * @param sessionsCompleted  sessions every turn of which (as the workload gave them) succeeded; null when the records
 *                           do not say their sessions' turns (written before they did)
 * @param sessionsCut        the other sessions: a failed turn, the run's end or a stop cut them
 * @param sessionDurationP50S p50 over sessions of the first send to the last end of their turns, seconds
 * @param sessionDurationP90S p90 of the same
 * @param meanTurnsPerSession successful turns per session, mean
 * @param singleRequests     requests without a session (a trace's) whose usage the hit rate, {@code cached_tokens}
 *                           and {@code prompt_tokens} count beside the sessions' turns; absent when none
 */
public record SessionsSummary(Double prefixCacheHitRate, long cachedTokens, Long promptTokens, int sessions,
                              List<TurnJson> byTurn,
                              @JsonInclude(JsonInclude.Include.NON_NULL) Integer turnsNotSent,
                              @JsonInclude(JsonInclude.Include.NON_NULL) Integer sessionsCompleted,
                              @JsonInclude(JsonInclude.Include.NON_NULL) Integer sessionsCut,
                              @JsonInclude(JsonInclude.Include.NON_NULL) Double sessionDurationP50S,
                              @JsonInclude(JsonInclude.Include.NON_NULL) Double sessionDurationP90S,
                              @JsonInclude(JsonInclude.Include.NON_NULL) Double meanTurnsPerSession,
                              @JsonInclude(JsonInclude.Include.NON_NULL) Integer singleRequests) {

    /** A section without a count of turns not sent. */
    public SessionsSummary(Double prefixCacheHitRate, long cachedTokens, Long promptTokens, int sessions,
                           List<TurnJson> byTurn) {
        this(prefixCacheHitRate, cachedTokens, promptTokens, sessions, byTurn, null);
    }

    /** A section without the per-session figures. */
    public SessionsSummary(Double prefixCacheHitRate, long cachedTokens, Long promptTokens, int sessions,
                           List<TurnJson> byTurn, Integer turnsNotSent) {
        this(prefixCacheHitRate, cachedTokens, promptTokens, sessions, byTurn, turnsNotSent, null, null, null, null,
                null, null);
    }

    /** The same section with the closed loop's count of turns not sent (null: none known). */
    public SessionsSummary withTurnsNotSent(Integer turns) {
        return new SessionsSummary(prefixCacheHitRate, cachedTokens, promptTokens, sessions, byTurn, turns,
                sessionsCompleted, sessionsCut, sessionDurationP50S, sessionDurationP90S, meanTurnsPerSession,
                singleRequests);
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
        Map<String, List<RequestRecord>> bySession = new java.util.LinkedHashMap<>();
        int singles = 0;
        for (RequestRecord r : records) {
            String id = r.tags().sessionId();
            if (id != null) {
                // a failed session's rest is tagged with the session it continues
                bySession.computeIfAbsent(r.tags().workloadSessionId(), k -> new ArrayList<>()).add(r);
            }
            if (!r.succeeded()) continue;
            if (r.usagePromptTokens() != null) { // the server's count, with or without a cached count beside it
                anyUsage = true;
                prompt += r.usagePromptTokens();
                cached += r.tags().cachedTokens() == null ? 0 : r.tags().cachedTokens();
                if (id == null) singles++;
            }
            if (id != null && r.tags().turn() >= 0) {
                turns.computeIfAbsent(r.tags().turn(), t -> new ArrayList<>()).add(r); // a rest's: its session's
            }
        }
        List<TurnJson> byTurn = new ArrayList<>();
        turns.forEach((turn, rs) -> byTurn.add(turn(turn, rs, counting)));
        Double rate = anyCached && prompt > 0 ? (double) cached / prompt : null;
        if (bySession.isEmpty()) return new SessionsSummary(rate, cached, anyUsage ? prompt : null, 0, byTurn);
        // per session: completed when every turn the workload gave it succeeded; its span, first send to last end
        int completed = 0;
        boolean turnsKnown = true;
        long successes = 0;
        double[] durations = new double[bySession.size()];
        int k = 0;
        for (List<RequestRecord> rs : bySession.values()) {
            int ok = 0;
            int planned = 0;
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            for (RequestRecord r : rs) {
                if (r.succeeded()) ok++;
                planned = Math.max(planned, r.tags().sessionTurns());
                first = Math.min(first, r.startEpochMicros());
                last = Math.max(last, r.startEpochMicros() + Math.max(0, r.e2eNanos()) / 1_000L);
            }
            turnsKnown &= planned > 0;
            if (planned > 0 && ok >= planned) completed++;
            successes += ok;
            durations[k++] = (last - first) / 1e6;
        }
        Arrays.sort(durations);
        int n = bySession.size();
        return new SessionsSummary(rate, cached, anyUsage ? prompt : null, n, byTurn, null,
                turnsKnown ? completed : null, turnsKnown ? n - completed : null, PandasStats.quantile(durations, 0.5),
                PandasStats.quantile(durations, 0.9), (double) successes / n, singles > 0 ? singles : null);
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

    /**
     * The console line: sessions (completed and cut, turns each, duration), mean TTFT by turn, the server's hit rate
     * and what it counts; null for no section. {@code notSucceeded}: the run's requests that did not succeed, whose
     * prompts the server's own /metrics rate counts and this one does not; said only when {@code serverRateReported}
     * (the run has that rate: server metrics were scraped and gave a prefix-cache hit rate).
     */
    static String consoleLine(SessionsSummary s, long notSucceeded, boolean serverRateReported) {
        if (s == null) return null;
        StringBuilder b = new StringBuilder();
        if (s.sessions() > 0) {
            b.append(s.sessions()).append(s.sessions() == 1 ? " session" : " sessions").append(", mean TTFT by turn");
            for (TurnJson t : s.byTurn()) {
                b.append(t.turn() == s.byTurn().get(0).turn() ? " " : " / ")
                        .append(t.ttftMeanS() == null ? "-" : String.format(Locale.ROOT, "%.3f", t.ttftMeanS()));
            }
            b.append(" s; ");
            if (s.sessionsCompleted() != null) {
                b.append(s.sessionsCompleted()).append(" completed, ").append(s.sessionsCut())
                        .append(" cut (a failed turn, the run's end or a stop); ");
            }
            if (s.meanTurnsPerSession() != null) {
                b.append(String.format(Locale.ROOT, "%.2f turns each on average, session duration p50 %.3f s, "
                        + "p90 %.3f s; ", s.meanTurnsPerSession(), s.sessionDurationP50S(), s.sessionDurationP90S()));
            }
        }
        b.append("server prefix-cache hit rate ").append(s.prefixCacheHitRate() == null ? "not reported"
                : String.format(Locale.ROOT, "%.1f %% (%d of %d prompt tokens", 100 * s.prefixCacheHitRate(),
                s.cachedTokens(), s.promptTokens()));
        if (s.prefixCacheHitRate() != null) {
            // what the rate counts: successful requests' usage, a trace's single requests among them
            b.append(" of the successful requests").append(s.singleRequests() == null ? ""
                    : ", " + s.singleRequests() + (s.singleRequests() == 1 ? " single request" : " single requests")
                    + " without a session included");
            b.append(serverRateAlsoCounts(notSucceeded, serverRateReported));
            b.append(")");
        }
        return (s.sessions() > 0 ? "Sessions: " : "Prefix cache: ") + b + System.lineSeparator();
    }

    /**
     * The clause that tells this rate from the server's own /metrics rate, which counts the prompts of failed and
     * cancelled requests too ("; the server's own /metrics rate also counts the prompts of the 1 request that failed
     * or was cancelled"); empty when every request succeeded or the run has no such rate (no server metrics, or no
     * prefix-cache counters among them): a rate that does not exist cannot differ.
     */
    public static String serverRateAlsoCounts(long notSucceeded, boolean serverRateReported) {
        if (notSucceeded <= 0 || !serverRateReported) return "";
        return "; the server's own /metrics rate also counts the prompts of the " + notSucceeded + (notSucceeded == 1
                ? " request that failed or was cancelled" : " requests that failed or were cancelled");
    }
}
