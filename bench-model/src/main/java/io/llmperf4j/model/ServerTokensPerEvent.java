package io.llmperf4j.model;

import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * llmperf4j's one rule for the tokens of a request that ended without the server's usage but received content
 * events (cut by the run's end, a timeout or a fork's end, or failed mid-stream), for every figure that counts the
 * tokens that arrived inside a window, through {@link WindowTokens}: the summary's delivered tokens, the iterations'
 * windows and a sweep level's held window (METRICS.md, "Tokens of a request without usage").
 *
 * <p>When the server's usage is preferred, each of its content events counts the server's output tokens per content
 * event over the run's successful requests that carried {@code usage.completion_tokens}: Σ usage / Σ content events
 * ({@link #of}). The client tokenizer's count of its text is in another unit whenever the client's tokenizer is not
 * the server's (llama-2 counts a QA server's one-token word "tok" as 2), and with {@code --tokenizer server} there is
 * no client count at all. Requests whose reasoning came first are left out of the rate: their usage counts reasoning
 * tokens no content event carried. Without such a rate (no successful request with usage, or the client's count
 * preferred) the request's own count n spread over its events, else one token per event (nothing counted it).
 */
public final class ServerTokensPerEvent {

    private ServerTokensPerEvent() {
    }

    /** Σ usage / Σ content events over {@code records}' successful requests with usage; empty when none. */
    public static OptionalDouble of(Iterable<RequestRecord> records) {
        long tokens = 0;
        long events = 0;
        for (RequestRecord rec : records) {
            OptionalInt usage = OutputTokenPolicy.serverOutputTokens(rec);
            int n = rec.contentEventNanos().length;
            if (!rec.succeeded() || usage.isEmpty() || n == 0 || rec.firstReasoningNanos() >= 0) continue;
            tokens += usage.getAsInt();
            events += n;
        }
        return events == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) tokens / events);
    }

    /** The rate of {@link #of} when {@code policy} prefers the server's usage, else empty. */
    public static OptionalDouble of(Iterable<RequestRecord> records, OutputTokenPolicy policy) {
        return policy.preferServerUsage() ? of(records) : OptionalDouble.empty();
    }

    /** True when the rule applies: the request did not succeed, sent no usage and received content events. */
    public static boolean endedWithoutUsage(RequestRecord rec) {
        return !rec.succeeded() && rec.contentEventNanos().length > 0
                && OutputTokenPolicy.serverOutputTokens(rec).isEmpty();
    }

    /**
     * Where the tokens of a request that {@link #endedWithoutUsage} arrived: each content event {@code serverRate}
     * when present, else its count {@code n} (the client tokenizer's, of what arrived) spread as {@code counts} say,
     * else one token per content event (nothing counted it: {@code --tokenizer server}).
     */
    public static void forEachArrival(RequestRecord rec, int n, EventTokenCounts counts, OptionalDouble serverRate,
                                      RequestRecord.TokenArrival sink) {
        if (serverRate.isPresent() || n <= 0) {
            double each = serverRate.orElse(1);
            for (long e : rec.contentEventNanos()) sink.at(e, each);
        } else {
            rec.forEachTokenArrival(n, counts, sink);
        }
    }
}
