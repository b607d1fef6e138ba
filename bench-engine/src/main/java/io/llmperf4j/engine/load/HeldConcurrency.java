package io.llmperf4j.engine.load;

import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.WindowTokens;

import java.util.List;
import java.util.Locale;
import java.util.function.ToIntFunction;

/**
 * A closed loop's throughput while it held its concurrency c, before its drain: output tokens delivered in the window
 * over its length. The window opens at the c-th send (a loaded client launches the first c over a while; after a
 * warmup, at the measured window's start) and closes at the first end no send replaced: of L launches, warmup
 * included, the first c went out at once and each later one replaced an end, so the (L − c + 1)-th end is the first
 * not replaced (counted by rank, so a client that sends late does not stretch it). A level's own output tok/s counts
 * the whole level, its drain included, when fewer and fewer requests are in flight: a level of 20 requests at
 * concurrency 16 sends its last 4 as the first 4 end and then runs with 4 in flight, so it read 385 tok/s where the
 * service gives 640 at 16 in flight (the QA's ground truth), and a sweep compared levels of different drains. The
 * window's tokens are every measured and warmup request's tokens delivered in it, failures' included (they were load
 * the service carried), by the rule {@code output_tokens_delivered} and the iterations count them by
 * ({@link WindowTokens}): with the server's usage preferred, a request cut mid-stream without usage counts the
 * server's tokens per content event over the level for each event it received, not its text's client count (another
 * unit, and none with {@code --tokenizer server}).
 *
 * @param seconds         the window's length
 * @param tokens          output tokens delivered in it
 * @param tokensPerSecond {@code tokens / seconds}
 * @param rounds          measured requests over the concurrency: how many times over the level's slots were filled
 */
public record HeldConcurrency(double seconds, double tokens, double tokensPerSecond, double rounds) {

    /** A level of fewer rounds is short: its drain is a large part of it. */
    public static final int STEADY_ROUNDS = 3;

    /**
     * The window of {@code result}, a closed loop at concurrency {@code result.settings().level()}, its tokens counted
     * by {@code policy} as the summary counts them; null for an open loop, sessions (a session's next turn waits on
     * the user's think time, not on a slot), answers that came whole (not streamed: a success without content
     * events), no measured request, or a window of no length.
     */
    public static HeldConcurrency of(LoadResult result, OutputTokenPolicy policy) {
        return of(result, WindowTokens.of(records(result), policy));
    }

    /**
     * As {@link #of(LoadResult, OutputTokenPolicy)}, each request's {@code outputTokens} spread evenly over its
     * content events (a count of no known source: {@link WindowTokens#evenly}).
     */
    public static HeldConcurrency of(LoadResult result, ToIntFunction<RequestRecord> outputTokens) {
        return of(result, WindowTokens.evenly(outputTokens));
    }

    private static HeldConcurrency of(LoadResult result, WindowTokens arrivals) {
        if (!(result instanceof ClosedLoopResult)) return null;
        List<ScheduledRecord> measured = result.measuredTimeline();
        double level = result.settings().level();
        if (measured.isEmpty() || !(level >= 1)
                || measured.stream().anyMatch(r -> r.record().tags().sessionId() != null)) {
            return null;
        }
        // an answer that came whole (--no-stream, embeddings) delivers its tokens at its end: a window that closes
        // at the first end no send replaced would count few of them
        if (measured.stream().anyMatch(r -> r.record().succeeded() && r.record().contentEventNanos().length == 0)) {
            return null;
        }
        int c = (int) Math.ceil(level);
        // from the c-th send (a loaded client launches the first c over a while) or the measured window's start
        long[] sends = result.timeline().stream().mapToLong(ScheduledRecord::actualSendOffsetNanos).sorted().toArray();
        if (sends.length < c) return null;
        long start = Math.max(result.measureStartOffsetNanos(), sends[c - 1]);
        // every launch past the first `level` replaced an end, so after the (launches − level + 1)-th end none was
        // replaced: counted by rank, not by the last send's instant, which a lagging client sends late
        long[] ends = result.timeline().stream().mapToLong(ScheduledRecord::endOffsetNanos).sorted().toArray();
        int held = ends.length - c; // 0-based index of that end
        if (held < 0) return null;
        long end = ends[held];
        if (end <= start) return null;
        double tokens = 0;
        for (ScheduledRecord r : result.timeline()) {
            tokens += arrivals.between(r.record(), r.actualSendOffsetNanos(), start, end);
        }
        double seconds = (end - start) / 1e9;
        return new HeldConcurrency(seconds, tokens, tokens / seconds, measured.size() / level);
    }

    /** The level filled its slots fewer than {@value #STEADY_ROUNDS} times over. */
    public boolean shortLevel() {
        return rounds < STEADY_ROUNDS;
    }

    /** "1.2 rounds", "3 rounds". */
    public String roundsInWords() {
        String n = rounds == Math.rint(rounds) ? String.format(Locale.ROOT, "%.0f", rounds)
                : String.format(Locale.ROOT, "%.1f", rounds);
        return n + (rounds == 1 ? " round" : " rounds");
    }

    private static List<RequestRecord> records(LoadResult result) {
        return result.timeline().stream().map(ScheduledRecord::record).toList();
    }
}
