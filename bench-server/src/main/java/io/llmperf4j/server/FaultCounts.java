package io.llmperf4j.server;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * A snapshot of the fault decisions a server made: one per generation or embeddings request that passed validation
 * (and authentication), counted when decided, whether by the {@link FaultPlan} or the {@value FaultKind#HEADER}
 * header. {@link FaultKind#NONE} counts the clean requests, so {@code count(NONE) + injected() == total()}: a
 * client that sent N valid requests can reconcile "ok + each error kind = N".
 *
 * @param byKind the count of every kind, NONE included (kinds never chosen map to 0)
 */
public record FaultCounts(Map<FaultKind, Long> byKind) {

    public FaultCounts {
        EnumMap<FaultKind, Long> copy = new EnumMap<>(FaultKind.class);
        for (FaultKind kind : FaultKind.values()) copy.put(kind, 0L);
        copy.putAll(Objects.requireNonNull(byKind, "byKind"));
        byKind = Collections.unmodifiableMap(copy);
    }

    public long count(FaultKind kind) {
        return byKind.get(kind);
    }

    /** Every decision: clean requests plus injected faults. */
    public long total() {
        long total = 0;
        for (long count : byKind.values()) total += count;
        return total;
    }

    /** Requests that got a fault (every kind but NONE). */
    public long injected() {
        return total() - count(FaultKind.NONE);
    }
}
