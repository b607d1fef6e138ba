package io.llmperf4j.report.search;

import io.llmperf4j.model.Percentiles;
import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.SloObjective;

import java.util.Arrays;
import java.util.List;

/**
 * A rate level judged twice over the same requests: from the intended send (the verdict, {@link LevelJudge}) and
 * from the actual send. In an open loop without a concurrency cap nothing makes a request wait for the server before
 * it goes out, so its send lag is the client's own delay (a pacer kept from the CPU); when the verdict fails from the
 * intended send and holds from the actual one, the client's lag alone failed the level: the client fell behind, the
 * server did not fail. Not thread-safe: one thread adds and judges.
 */
public final class ClientLagJudge {
    private final LevelJudge intended;
    private final LevelJudge actual;
    private long[] lags = new long[64];
    private int size;

    /** @param minSamples requests before any verdict is resolved (at least 1) */
    public ClientLagJudge(List<SloObjective> objectives, int minSamples) {
        this.intended = new LevelJudge(objectives, minSamples);
        this.actual = new LevelJudge(objectives, minSamples);
    }

    /** Adds one ended request; {@code lagNanos} is how late it was sent after its intended time (negatives as 0). */
    public void add(RequestMetrics request, long lagNanos) {
        long lag = Math.max(0, lagNanos);
        intended.add(request, lag);
        actual.add(request, 0);
        if (size == lags.length) lags = Arrays.copyOf(lags, size * 2);
        lags[size++] = lag;
    }

    /**
     * Adds one ended request due at a time the client set itself (a session's later turn after its think time, a
     * failed session's rest): judged from its actual send in both verdicts, as the main run judges it, and its lag,
     * the client's pace rather than the schedule's, is not among the send lags.
     */
    public void addFromActualSend(RequestMetrics request) {
        intended.add(request, 0);
        actual.add(request, 0);
    }

    /** The verdict, from the intended send. */
    public LevelJudgement judge() {
        return intended.judge();
    }

    /** The same requests judged from their actual sends. */
    public LevelJudgement fromActualSend() {
        return actual.judge();
    }

    /** The level fails from the intended send and holds from the actual one: the client's send lag failed it. */
    public boolean clientBehind() {
        return !judge().passed() && fromActualSend().passed();
    }

    /** Requests added so far (both kinds). */
    public int samples() {
        return intended.samples();
    }

    /**
     * p99 of the send lags so far ({@link #add}'s: the sends due at the schedule's instants), in ms (the one percentile
     * definition); NaN before any.
     */
    public double sendLagP99Millis() {
        return size == 0 ? Double.NaN : Percentiles.of(Arrays.copyOf(lags, size), 99) / 1e6;
    }
}
