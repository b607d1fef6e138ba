package io.llmperf4j.model;

import java.util.Objects;
import java.util.OptionalDouble;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * llmperf4j's one rule for how many output tokens a request delivered between two instants, for every figure that
 * counts the tokens that arrived inside a window: the summary's {@code output_tokens_delivered}, the iterations'
 * windows and a sweep level's tokens while it held its concurrency (METRICS.md §2, "Tokens of a request without
 * usage"). One rule, so that the three agree on the same requests.
 *
 * <ul>
 *   <li>A request with content events: its n spread over them as the tokens each carried by n's source
 *       ({@link EventTokenCounts}; evenly where there are none), each counting at its arrival.</li>
 *   <li>A request that ended without the server's usage but received content events (cut by the run's or a fork's
 *       end, failed mid-stream): {@link ServerTokensPerEvent#forEachArrival}, each event the server's tokens per
 *       content event over the same records when n is the server's usage, so that it is counted in the others' unit
 *       (the client tokenizer's count of its text is in another, and {@code --tokenizer server} has none).</li>
 *   <li>A request without content events (an answer not streamed): its n at its end, when it succeeded or the
 *       server's usage counted it; one that failed with neither delivered nothing (a 429's empty text counts the
 *       client tokenizer's BOS, not a token the server sent).</li>
 * </ul>
 */
public final class WindowTokens {

    private final ToIntFunction<RequestRecord> outputTokens;
    private final Function<RequestRecord, EventTokenCounts> eventTokens;
    /** The server's tokens per content event for a request without usage; empty when n is not in its unit. */
    private final OptionalDouble serverRate;

    private WindowTokens(ToIntFunction<RequestRecord> outputTokens,
                         Function<RequestRecord, EventTokenCounts> eventTokens, OptionalDouble serverRate) {
        this.outputTokens = Objects.requireNonNull(outputTokens, "outputTokens");
        this.eventTokens = Objects.requireNonNull(eventTokens, "eventTokens");
        this.serverRate = serverRate;
    }

    /** Counting as {@code policy} does, the server's rate taken over {@code records} (all the figure counts). */
    public static WindowTokens of(Iterable<RequestRecord> records, OutputTokenPolicy policy) {
        return new WindowTokens(policy::outputTokensOrZero, policy::eventTokens,
                ServerTokensPerEvent.of(records, policy));
    }

    /**
     * Counting n by {@code outputTokens}, spread as {@code eventTokens} say; with {@code inServerUnits} (n is the
     * server's usage where sent) a request without usage counts the server's rate over {@code records}.
     */
    public static WindowTokens of(Iterable<RequestRecord> records, ToIntFunction<RequestRecord> outputTokens,
                                  Function<RequestRecord, EventTokenCounts> eventTokens, boolean inServerUnits) {
        return new WindowTokens(outputTokens, eventTokens,
                inServerUnits ? ServerTokensPerEvent.of(records) : OptionalDouble.empty());
    }

    /**
     * Counting n by {@code outputTokens}, a count of no known source: spread evenly over the content events, and a
     * request without usage counts its own n (no rate is known to be in n's unit).
     */
    public static WindowTokens evenly(ToIntFunction<RequestRecord> outputTokens) {
        return new WindowTokens(outputTokens, r -> EventTokenCounts.NONE, OptionalDouble.empty());
    }

    /** Where {@code rec}'s tokens arrived, offsets from its send (see the class comment). */
    public void forEachArrival(RequestRecord rec, RequestRecord.TokenArrival sink) {
        int n = Math.max(0, outputTokens.applyAsInt(rec));
        if (ServerTokensPerEvent.endedWithoutUsage(rec)) {
            ServerTokensPerEvent.forEachArrival(rec, n, eventTokens.apply(rec), serverRate, sink);
        } else if (rec.succeeded() || rec.contentEventNanos().length > 0
                || OutputTokenPolicy.serverOutputTokens(rec).isPresent()) {
            rec.forEachTokenArrival(n, eventTokens.apply(rec), sink);
        }
    }

    /**
     * The tokens {@code rec}, sent at {@code sendNanos}, delivered from {@code from} to {@code to}, both included (on
     * the clock of {@code sendNanos}).
     */
    public double between(RequestRecord rec, long sendNanos, long from, long to) {
        double[] inside = {0};
        forEachArrival(rec, (offset, tokens) -> {
            long t = sendNanos + offset;
            if (t >= from && t <= to) inside[0] += tokens;
        });
        return inside[0];
    }
}
