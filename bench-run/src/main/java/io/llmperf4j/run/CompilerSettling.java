package io.llmperf4j.run;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Whether the JIT compilers have settled under a load that keeps running: the load is judged in spans of at least
 * {@link #SPAN_NANOS}, and a span in which the compiler threads used at most {@link #SETTLED_SHARE} of the time is a
 * settled one. With one C2 thread the queue is long while a fresh JVM is under load, and the JIT raises its
 * thresholds with its length: stopping the load at a fixed count or time leaves hot methods to be compiled inside
 * the measurement that follows.
 */
final class CompilerSettling {
    /** The compilers' share of a span under which they count as settled. */
    static final double SETTLED_SHARE = 0.15;
    /** Spans are at least this long: one C2 compilation can take 0.2-1 s. */
    static final long SPAN_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    /** What one look at the compilers found. */
    enum Verdict {
        /** The current span is shorter than {@link #SPAN_NANOS}: keep the load going. */
        SPAN_OPEN,
        /** The span ended with the compilers above the share; a new span begins. */
        BUSY,
        /** The span ended with the compilers at or under the share; a new span begins. */
        SETTLED
    }

    private final LongSupplier clockNanos;
    private final LongSupplier compilerNanos;
    private long spanStart;
    private long compiledAtSpanStart;

    /** Against this JVM's clock and compiler threads; the first span starts now. */
    CompilerSettling() {
        this(System::nanoTime, CompilerCpu::nanos);
    }

    /** Against the given clock and compiler CPU time (nanoseconds each); the first span starts now. */
    CompilerSettling(LongSupplier clockNanos, LongSupplier compilerNanos) {
        this.clockNanos = clockNanos;
        this.compilerNanos = compilerNanos;
        startSpan();
    }

    /** Call after each unit of load; a span that has lasted {@link #SPAN_NANOS} is judged and a new one begins. */
    Verdict look() {
        long elapsed = clockNanos.getAsLong() - spanStart;
        if (elapsed < SPAN_NANOS) return Verdict.SPAN_OPEN;
        long compiled = compilerNanos.getAsLong() - compiledAtSpanStart;
        startSpan();
        return compiled <= SETTLED_SHARE * elapsed ? Verdict.SETTLED : Verdict.BUSY;
    }

    private void startSpan() {
        spanStart = clockNanos.getAsLong();
        compiledAtSpanStart = compilerNanos.getAsLong();
    }
}
