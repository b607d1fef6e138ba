package io.llmperf4j.distributed;

import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.Warmup;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One worker's part of the load, as plain values that cross the cluster.
 *
 * @param openLoop          false: a closed loop of {@code concurrency} slots; true: an open loop at {@code rate}
 * @param concurrency       closed loop: this worker's slots
 * @param rate              open loop: this worker's requests per second
 * @param arrival           open loop: constant, poisson or gamma
 * @param gammaShape        open loop: the gamma shape, or null
 * @param seed              open loop: this worker's schedule seed
 * @param maxRequests       measured requests (closed loop: exactly the share's specs; open loop: arrivals), or null
 *                          for an open loop bounded by {@code durationNanos} or a closed loop that sends until its
 *                          timeout, cycling through its specs
 * @param durationNanos     open loop: arrivals are scheduled for this long, or null
 * @param maxConcurrency    open loop: at most this many in flight on this worker, or null
 * @param timeoutNanos      the run's limit, as on one machine
 * @param warmupRequests    this worker's warmup requests (or arrivals), or null
 * @param warmupNanos       warmup by time (the same on every worker), or null
 */
public record LoadShare(boolean openLoop, int concurrency, double rate, String arrival, Double gammaShape, long seed,
                        Integer maxRequests, Long durationNanos, Integer maxConcurrency, long timeoutNanos,
                        Integer warmupRequests, Long warmupNanos) {

    public static LoadShare closed(int concurrency, int requests, Duration timeout, Warmup warmup) {
        return new LoadShare(false, concurrency, 0, null, null, 0, requests, null, null, timeout.toNanos(),
                warmupRequests(warmup), warmupNanos(warmup));
    }

    /** A closed loop that keeps its slots busy until {@code duration} has passed (a harness fork). */
    public static LoadShare closedFor(int concurrency, Duration duration) {
        return new LoadShare(false, concurrency, 0, null, null, 0, null, null, null, duration.toNanos(), null, null);
    }

    /** @param warmup this worker's part of the whole warmup */
    public static LoadShare open(OpenLoopSettings whole, double rate, long seed, Integer maxRequests,
                                 Integer maxConcurrency, Warmup warmup) {
        Double shape = whole.arrival() instanceof Arrival.Gamma g ? g.shape() : null;
        return new LoadShare(true, 0, rate, whole.arrival().name(), shape, seed, maxRequests,
                whole.duration().map(Duration::toNanos).orElse(null), maxConcurrency, whole.timeout().toNanos(),
                warmupRequests(warmup), warmupNanos(warmup));
    }

    public Warmup warmup() {
        if (warmupRequests != null) return Warmup.requests(warmupRequests);
        if (warmupNanos != null) return Warmup.duration(Duration.ofNanos(warmupNanos));
        return Warmup.NONE;
    }

    private static Integer warmupRequests(Warmup w) {
        return w instanceof Warmup.ForRequests r ? r.count() : null;
    }

    private static Long warmupNanos(Warmup w) {
        return w instanceof Warmup.ForDuration d ? d.nanos() : null;
    }

    /**
     * The closed loop this share runs: every spec of the share once, in order, whichever slot is free; or, without a
     * request count, the specs over and over until the timeout.
     */
    public ClosedLoopSettings closedLoopSettings() {
        int requests = maxRequests == null ? Integer.MAX_VALUE : maxRequests;
        return new ClosedLoopSettings(concurrency, OptionalInt.of(requests), Duration.ofNanos(timeoutNanos), warmup(),
                ClosedLoopSettings.PromptOrder.SEND_ORDER);
    }

    /** The open loop this share runs. */
    public OpenLoopSettings openLoopSettings() {
        Arrival a = switch (arrival) {
            case "constant" -> Arrival.constant();
            case "gamma" -> Arrival.gamma(gammaShape);
            default -> Arrival.poisson();
        };
        return new OpenLoopSettings(rate, a, seed,
                maxRequests == null ? OptionalInt.empty() : OptionalInt.of(maxRequests),
                Optional.ofNullable(durationNanos).map(Duration::ofNanos), Duration.ofNanos(timeoutNanos),
                maxConcurrency == null ? OptionalInt.empty() : OptionalInt.of(maxConcurrency), warmup());
    }

    /** "closed loop, concurrency 4, 10 requests" or "open loop, 2.5 req/s, 10 arrivals". */
    public String describe() {
        String warmupText = warmupRequests != null ? ", warmup " + warmupRequests + " requests"
                : warmupNanos != null ? ", warmup " + warmupNanos / 1e9 + " s" : "";
        if (!openLoop) {
            return "closed loop, concurrency " + concurrency + ", " + (maxRequests == null
                    ? "for " + timeoutNanos / 1e9 + " s" : maxRequests + " requests") + warmupText;
        }
        return "open loop, " + rate + " req/s " + arrival
                + (maxRequests == null ? "" : ", " + maxRequests + " arrivals")
                + (durationNanos == null ? "" : ", " + durationNanos / 1e9 + " s")
                + (maxConcurrency == null ? "" : ", at most " + maxConcurrency + " in flight") + warmupText;
    }
}
