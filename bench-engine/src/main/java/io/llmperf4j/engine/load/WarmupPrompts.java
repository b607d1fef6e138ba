package io.llmperf4j.engine.load;

import io.llmperf4j.model.RequestSpec;

import java.util.AbstractList;
import java.util.List;
import java.util.Objects;

/**
 * A level's workload whose {@link Warmup} sends prompts of its own: the measured requests are exactly those of the
 * same run without warmup (the same list, in the same order), and the warmup's requests come from a sequence of their
 * own ({@link FreshRequests}: the same workload drawn from another seed). A warmup then warms the server and the
 * connections but never the measured prompts, which a prefix cache would otherwise serve (TTFT would time a cached
 * prefill). Without such a sequence (a dataset, a manifest: nothing to draw from) a warmup cycles through the
 * measured requests and the measured ones continue where it stopped.
 *
 * <p>As a list it is the measured requests, so code that reads a workload as a list (its size, a cluster's workers)
 * sees what it saw before. {@link ClosedLoopRunner} and {@link OpenLoopRunner} see it and send each warmup request
 * from the warmup's sequence.
 */
public final class WarmupPrompts extends AbstractList<RequestSpec> {

    private final List<RequestSpec> measured;
    private final FreshRequests warmup;

    /**
     * @param measured the level's requests (a {@link FreshRequests} when every measured request draws its own)
     * @param warmup   the warmup's own sequence
     */
    public WarmupPrompts(List<RequestSpec> measured, FreshRequests warmup) {
        this.measured = Objects.requireNonNull(measured, "measured");
        if (measured.isEmpty()) throw new IllegalArgumentException("a workload needs at least one request");
        this.warmup = Objects.requireNonNull(warmup, "warmup");
    }

    @Override
    public RequestSpec get(int index) {
        return measured.get(index);
    }

    @Override
    public int size() {
        return measured.size();
    }

    /** The measured requests of {@code specs}: itself unless it is a {@link WarmupPrompts}. */
    static List<RequestSpec> measuredOf(List<RequestSpec> specs) {
        return specs instanceof WarmupPrompts w ? w.measured : specs;
    }

    /**
     * The warmup's own sequence opened for a run, drawing {@code ahead} before the clock; null when {@code specs}
     * has none or {@code warmup} sends nothing (the warmup then cycles the measured requests).
     */
    static FreshRequests.Supply openWarmup(List<RequestSpec> specs, Warmup warmup, int ahead) {
        if (!(specs instanceof WarmupPrompts w) || warmup instanceof Warmup.None || ahead < 1) return null;
        return w.warmup.open(ahead);
    }

    /** The draws a warmup of {@code warmup} keeps ready when {@code concurrent} sends can come at once. */
    static int aheadFor(Warmup warmup, int concurrent) {
        int ahead = FreshRequests.aheadFor(concurrent);
        return warmup instanceof Warmup.ForRequests r ? Math.min(r.count(), ahead) : ahead;
    }
}
