package io.llmperf4j.server;

import java.util.EnumMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Predicate;

/** Decides each request's fault (plan or header) and counts the decisions; shared by all I/O threads. */
final class FaultCounters {

    private final FaultPlan plan;
    private final AtomicLong arrivals = new AtomicLong();
    private final AtomicLongArray counts = new AtomicLongArray(FaultKind.values().length);

    FaultCounters(FaultPlan plan) {
        this.plan = plan;
    }

    /**
     * The kind for one validated request: {@code forced} when the header named one, else the plan's choice for
     * the next arrival index or for {@code requestHash}. Counts it.
     */
    FaultKind decide(FaultKind forced, boolean stream, long requestHash) {
        return decide(forced, kind -> stream || kind.appliesToNonStreaming(), requestHash);
    }

    /** As {@link #decide(FaultKind, boolean, long)}, the plan choosing among the kinds that {@code applies}. */
    FaultKind decide(FaultKind forced, Predicate<FaultKind> applies, long requestHash) {
        FaultKind kind;
        if (forced != null) {
            kind = forced;
        } else if (plan.isNone()) {
            kind = FaultKind.NONE;
        } else {
            long key = plan.selection() == FaultPlan.Selection.ARRIVAL_ORDER ? arrivals.getAndIncrement() : requestHash;
            kind = plan.choose(key, applies);
        }
        counts.incrementAndGet(kind.ordinal());
        return kind;
    }

    FaultCounts snapshot() {
        EnumMap<FaultKind, Long> byKind = new EnumMap<>(FaultKind.class);
        for (FaultKind kind : FaultKind.values()) byKind.put(kind, counts.get(kind.ordinal()));
        return new FaultCounts(byKind);
    }
}
