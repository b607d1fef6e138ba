package io.llmperf4j.engine.load;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * A closed-loop run: {@code concurrency} slots each keep one request in flight.
 *
 * @param concurrency  requests in flight at once (llmperf's --num-concurrent-requests)
 * @param maxCompleted measured records to collect (warmup excluded); empty means one per request spec (llmperf's
 *                     --max-num-completed-requests, which is also its number of prompts)
 * @param timeout      run duration limit, warmup included; at the limit, requests in flight are cancelled and
 *                     recorded as CANCELLED
 * @param warmup       requests kept apart from the results; {@link Warmup#NONE} for llmperf's behaviour
 * @param promptOrder  which request spec each launch sends
 */
public record ClosedLoopSettings(int concurrency, OptionalInt maxCompleted, Duration timeout, Warmup warmup,
                                 PromptOrder promptOrder) implements LoadSettings {

    /** Which request spec a launch sends. */
    public enum PromptOrder {
        /**
         * llmperf's token benchmark (§6): slot {@code i} starts at spec {@code i mod M} and advances by the
         * concurrency, so a fast slot can wrap and re-send specs while others are still busy.
         */
        SLOT_STRIDE,
        /**
         * The specs in send order, whichever slot is free: launch {@code k} sends spec {@code k mod M}. With
         * {@code maxCompleted <= M} every spec is sent exactly once, like llmperf's correctness test, which draws a
         * fresh random number for each launch.
         */
        SEND_ORDER
    }

    public ClosedLoopSettings {
        if (concurrency < 1) throw new IllegalArgumentException("concurrency (" + concurrency + ") must be >= 1");
        Objects.requireNonNull(maxCompleted, "maxCompleted");
        if (maxCompleted.isPresent() && maxCompleted.getAsInt() < 1) {
            throw new IllegalArgumentException("maxCompleted (" + maxCompleted.getAsInt() + ") must be >= 1");
        }
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout (" + timeout + ") must be > 0");
        }
        warmup = warmup == null ? Warmup.NONE : warmup;
        Objects.requireNonNull(promptOrder, "promptOrder");
    }

    /** In llmperf's token benchmark order. */
    public ClosedLoopSettings(int concurrency, OptionalInt maxCompleted, Duration timeout, Warmup warmup) {
        this(concurrency, maxCompleted, timeout, warmup, PromptOrder.SLOT_STRIDE);
    }

    /** Without warmup, in llmperf's token benchmark order. */
    public ClosedLoopSettings(int concurrency, OptionalInt maxCompleted, Duration timeout) {
        this(concurrency, maxCompleted, timeout, Warmup.NONE, PromptOrder.SLOT_STRIDE);
    }

    /** One record per request spec, without warmup, in llmperf's token benchmark order. */
    public ClosedLoopSettings(int concurrency, Duration timeout) {
        this(concurrency, OptionalInt.empty(), timeout);
    }

    public ClosedLoopSettings withMaxCompleted(int max) {
        return new ClosedLoopSettings(concurrency, OptionalInt.of(max), timeout, warmup, promptOrder);
    }

    @Override
    public ClosedLoopSettings withWarmup(Warmup w) {
        return new ClosedLoopSettings(concurrency, maxCompleted, timeout, w, promptOrder);
    }

    public ClosedLoopSettings withTimeout(Duration t) {
        return new ClosedLoopSettings(concurrency, maxCompleted, t, warmup, promptOrder);
    }

    public ClosedLoopSettings withPromptOrder(PromptOrder order) {
        return new ClosedLoopSettings(concurrency, maxCompleted, timeout, warmup, order);
    }

    @Override
    public double level() {
        return concurrency;
    }

    @Override
    public String levelName() {
        return "concurrency";
    }

    @Override
    public Map<String, String> params() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("concurrency", Integer.toString(concurrency));
        return p;
    }

    @Override
    public String describe() {
        return "closed loop, concurrency " + concurrency;
    }
}
