package io.llmperf4j.server;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.Objects;

/**
 * Which generation requests get which {@link FaultKind}: a seeded, deterministic choice, so a run can be repeated
 * exactly. Default {@link #none()}. Build one with {@link #random(double, long)},
 * {@link #random(double, Map, long)} or {@link #sequence(List)}, then adjust with the {@code with*} methods.
 *
 * <h2>The key of a request</h2>
 * {@link Selection#ARRIVAL_ORDER} (default): the key is the request's index among the server's planned requests
 * (0, 1, 2, ... in the order they passed validation; requests that force a kind by the {@value FaultKind#HEADER}
 * header take no index). So the first N planned requests always get the same multiset of kinds, and with
 * requests sent one at a time, the same kind each. {@link Selection#REQUEST_HASH}: the key is the 64-bit FNV-1a
 * hash of the request path and body bytes, so the same request always gets the same kind, in any order.
 *
 * <h2>The choice for a key</h2>
 * With a {@link #sequence()} (non-empty): kind {@code sequence[key mod size]} (REQUEST_HASH: the key is first mixed
 * with the seed). Otherwise: {@code u = unit(mix(seed, key))}; the request is clean ({@link FaultKind#NONE}) when
 * {@code u >= faultRate}, else a second draw picks a kind with probability proportional to its weight, among
 * kinds that apply to the request ({@link FaultKind#appliesToNonStreaming()}). A sequence entry that does not
 * apply to a non-streaming request yields NONE. {@link #choose(long, boolean)} is that pure function.
 *
 * @param faultRate           share of requests that get a fault, in [0, 1] (ignored with a sequence)
 * @param weights             relative weight of each fault kind (NONE excluded; absent kinds weigh 0)
 * @param sequence            a fixed cycle of kinds (NONE allowed), or empty for the random choice
 * @param seed                seeds both draws
 * @param selection           how a request's key is made
 * @param stallDuration       how long {@link FaultKind#STALL} stops a stream, default 1 s
 * @param oversizedEventBytes the padding of the {@link FaultKind#OVERSIZED_EVENT} event (so its least size),
 *                            default 1 MiB
 */
public record FaultPlan(
        double faultRate,
        Map<FaultKind, Double> weights,
        List<FaultKind> sequence,
        long seed,
        Selection selection,
        Duration stallDuration,
        int oversizedEventBytes) {

    public static final Duration DEFAULT_STALL_DURATION = Duration.ofSeconds(1);
    public static final int DEFAULT_OVERSIZED_EVENT_BYTES = 1 << 20;
    public static final int MAX_OVERSIZED_EVENT_BYTES = 64 << 20;

    /** How a request's key is made; see the class comment. */
    public enum Selection { ARRIVAL_ORDER, REQUEST_HASH }

    private static final FaultPlan NONE = new FaultPlan(0, Map.of(), List.of(), 0, Selection.ARRIVAL_ORDER,
            DEFAULT_STALL_DURATION, DEFAULT_OVERSIZED_EVENT_BYTES);

    public FaultPlan {
        if (!(faultRate >= 0 && faultRate <= 1)) {
            throw new IllegalArgumentException("faultRate (" + faultRate + ") must be within [0, 1]");
        }
        Objects.requireNonNull(weights, "weights");
        EnumMap<FaultKind, Double> copy = new EnumMap<>(FaultKind.class);
        double total = 0;
        for (Map.Entry<FaultKind, Double> e : weights.entrySet()) {
            FaultKind kind = Objects.requireNonNull(e.getKey(), "weights must not contain a null kind");
            Double weight = e.getValue();
            if (kind == FaultKind.NONE) {
                throw new IllegalArgumentException("weights must not contain none (faultRate sets the clean share)");
            }
            if (weight == null || !(weight >= 0) || weight.isInfinite()) {
                throw new IllegalArgumentException("weight of " + kind + " (" + weight + ") must be a finite number >= 0");
            }
            if (weight > 0) copy.put(kind, weight);
            total += weight;
        }
        weights = Collections.unmodifiableMap(copy);
        sequence = List.copyOf(Objects.requireNonNull(sequence, "sequence")); // rejects null elements
        if (sequence.isEmpty() && faultRate > 0 && total == 0) {
            throw new IllegalArgumentException("weights must give some fault kind a weight > 0 when faultRate ("
                    + faultRate + ") > 0");
        }
        Objects.requireNonNull(selection, "selection");
        Objects.requireNonNull(stallDuration, "stallDuration");
        if (stallDuration.isNegative() || stallDuration.compareTo(SimulatorConfig.MAX_DELAY) > 0) {
            throw new IllegalArgumentException("stallDuration (" + stallDuration + ") must be within [0, "
                    + SimulatorConfig.MAX_DELAY + "]");
        }
        if (oversizedEventBytes < 1 || oversizedEventBytes > MAX_OVERSIZED_EVENT_BYTES) {
            throw new IllegalArgumentException("oversizedEventBytes (" + oversizedEventBytes + ") must be within [1, "
                    + MAX_OVERSIZED_EVENT_BYTES + "]");
        }
    }

    /** No faults (the default). */
    public static FaultPlan none() {
        return NONE;
    }

    /** A share {@code faultRate} of requests fail, every fault kind equally likely. */
    public static FaultPlan random(double faultRate, long seed) {
        EnumMap<FaultKind, Double> weights = new EnumMap<>(FaultKind.class);
        for (FaultKind kind : FaultKind.values()) {
            if (kind != FaultKind.NONE) weights.put(kind, 1.0);
        }
        return random(faultRate, weights, seed);
    }

    /** A share {@code faultRate} of requests fail, each kind with probability proportional to its weight. */
    public static FaultPlan random(double faultRate, Map<FaultKind, Double> weights, long seed) {
        return new FaultPlan(faultRate, weights, List.of(), seed, Selection.ARRIVAL_ORDER, DEFAULT_STALL_DURATION,
                DEFAULT_OVERSIZED_EVENT_BYTES);
    }

    /** Request with key k gets {@code kinds[k mod size]}; e.g. (NONE, HTTP_429) fails every second request. */
    public static FaultPlan sequence(List<FaultKind> kinds) {
        if (kinds.isEmpty()) throw new IllegalArgumentException("sequence must not be empty");
        return new FaultPlan(0, Map.of(), kinds, 0, Selection.ARRIVAL_ORDER, DEFAULT_STALL_DURATION,
                DEFAULT_OVERSIZED_EVENT_BYTES);
    }

    public static FaultPlan sequence(FaultKind... kinds) {
        return sequence(List.of(kinds));
    }

    public FaultPlan withSelection(Selection selection) {
        return new FaultPlan(faultRate, weights, sequence, seed, selection, stallDuration, oversizedEventBytes);
    }

    public FaultPlan withSeed(long seed) {
        return new FaultPlan(faultRate, weights, sequence, seed, selection, stallDuration, oversizedEventBytes);
    }

    public FaultPlan withStallDuration(Duration stallDuration) {
        return new FaultPlan(faultRate, weights, sequence, seed, selection, stallDuration, oversizedEventBytes);
    }

    public FaultPlan withOversizedEventBytes(int oversizedEventBytes) {
        return new FaultPlan(faultRate, weights, sequence, seed, selection, stallDuration, oversizedEventBytes);
    }

    /** True when no request can get a fault from the plan (the header can still force one). */
    public boolean isNone() {
        return sequence.isEmpty() ? faultRate == 0 : sequence.stream().allMatch(k -> k == FaultKind.NONE);
    }

    /** The kind for the request with {@code key}; a pure function of the plan, the key and {@code stream}. */
    public FaultKind choose(long key, boolean stream) {
        return choose(key, kind -> stream || kind.appliesToNonStreaming());
    }

    /**
     * The kind for the request with {@code key} among the kinds that {@code applies} to it (the others weigh 0, and
     * a sequence's inapplicable kind yields NONE); a pure function of the plan, the key and {@code applies}.
     */
    public FaultKind choose(long key, Predicate<FaultKind> applies) {
        if (!sequence.isEmpty()) {
            long index = selection == Selection.ARRIVAL_ORDER ? key : Hashing.mix(seed, key);
            FaultKind kind = sequence.get((int) Math.floorMod(index, (long) sequence.size()));
            return applies.test(kind) ? kind : FaultKind.NONE;
        }
        if (faultRate == 0) return FaultKind.NONE;
        long bits = Hashing.mix(seed, key);
        if (Hashing.unit(bits) >= faultRate) return FaultKind.NONE;
        double total = 0;
        for (Map.Entry<FaultKind, Double> e : weights.entrySet()) {
            if (applies.test(e.getKey())) total += e.getValue();
        }
        if (total == 0) return FaultKind.NONE;
        double target = Hashing.unit(Hashing.mix(bits, 1)) * total;
        FaultKind last = FaultKind.NONE;
        for (Map.Entry<FaultKind, Double> e : weights.entrySet()) {
            if (!applies.test(e.getKey())) continue;
            last = e.getKey();
            target -= e.getValue();
            if (target < 0) return last;
        }
        return last; // rounding left a sliver: the last applicable kind
    }
}
