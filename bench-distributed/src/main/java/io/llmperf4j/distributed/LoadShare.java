package io.llmperf4j.distributed;

import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.ArrivalSchedule;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.Warmup;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One worker's part of the load, as plain values that cross the cluster.
 *
 * <p>An open loop's share is a slice of the run's one arrival schedule ({@link ArrivalSlice}): the schedule's
 * settings (rate, shape, seed, length, warmup) are the whole run's, and this worker sends arrivals {@code slice,
 * slice + slices, ...} of it.
 *
 * @param openLoop          false: a closed loop of {@code concurrency} slots; true: an open loop at {@code rate}
 * @param concurrency       closed loop: this worker's slots
 * @param rate              open loop: the whole run's requests per second
 * @param arrival           open loop: constant, poisson or gamma
 * @param gammaShape        open loop: the gamma shape, or null
 * @param seed              open loop: the whole run's schedule seed
 * @param maxRequests       closed loop: exactly the share's specs, or null for a closed loop that sends until its
 *                          timeout, cycling through its specs; open loop: the whole run's measured arrivals, or null
 *                          for one bounded by {@code durationNanos}
 * @param durationNanos     open loop: arrivals are scheduled for this long, or null
 * @param maxConcurrency    open loop: at most this many in flight on this worker, or null
 * @param timeoutNanos      the run's limit, as on one machine
 * @param warmupRequests    closed loop: this worker's warmup requests; open loop: the whole run's warmup arrivals;
 *                          or null
 * @param warmupNanos       warmup by time (the same on every worker), or null
 * @param slice             open loop: which of the schedule's round-robin parts this worker sends (0 for a closed
 *                          loop)
 * @param slices            open loop: in how many parts the schedule is dealt (1 for a closed loop)
 */
public record LoadShare(boolean openLoop, int concurrency, double rate, String arrival, Double gammaShape, long seed,
                        Integer maxRequests, Long durationNanos, Integer maxConcurrency, long timeoutNanos,
                        Integer warmupRequests, Long warmupNanos, int slice, int slices) {

    public LoadShare {
        if (slices < 1 || slice < 0 || slice >= slices) {
            throw new IllegalArgumentException("slice " + slice + " of " + slices + " does not exist");
        }
    }

    public static LoadShare closed(int concurrency, int requests, Duration timeout, Warmup warmup) {
        return new LoadShare(false, concurrency, 0, null, null, 0, requests, null, null, timeout.toNanos(),
                warmupRequests(warmup), warmupNanos(warmup), 0, 1);
    }

    /** A closed loop that keeps its slots busy until {@code duration} has passed (a harness fork). */
    public static LoadShare closedFor(int concurrency, Duration duration) {
        return new LoadShare(false, concurrency, 0, null, null, 0, null, null, null, duration.toNanos(), null, null,
                0, 1);
    }

    /**
     * Slice {@code slice} of {@code slices} of the open loop {@code whole}, with at most {@code maxConcurrency} in
     * flight on this worker (null: no cap).
     */
    public static LoadShare open(OpenLoopSettings whole, int slice, int slices, Integer maxConcurrency) {
        Double shape = whole.arrival() instanceof Arrival.Gamma g ? g.shape() : null;
        return new LoadShare(true, 0, whole.requestsPerSecond(), whole.arrival().name(), shape, whole.seed(),
                whole.maxRequests().isPresent() ? whole.maxRequests().getAsInt() : null,
                whole.duration().map(Duration::toNanos).orElse(null), maxConcurrency, whole.timeout().toNanos(),
                warmupRequests(whole.warmup()), warmupNanos(whole.warmup()), slice, slices);
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

    /** This worker's arrivals: its slice of the whole run's schedule, offsets from the shared start. */
    public ArrivalSchedule schedule() {
        return ArrivalSlice.of(openLoopSettings().schedule(), slice, slices);
    }

    /**
     * The measured requests this worker is to send: a closed loop's request count, an open loop's measured arrivals
     * of its slice; null for a closed loop that sends until its timeout.
     */
    public Integer assignedRequests() {
        if (!openLoop) return maxRequests;
        return schedule().measuredArrivals();
    }

    /** The open loop this share runs: the whole run's settings (its schedule is sliced) with this worker's cap. */
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
        return "open loop, " + (slices == 1 ? "" : "arrival " + (slice + 1) + " and every " + ordinal(slices)
                + " after it of ") + rate + " req/s " + arrival
                + (maxRequests == null ? "" : ", " + maxRequests + " arrivals" + (slices == 1 ? "" : " in all"))
                + (durationNanos == null ? "" : ", " + durationNanos / 1e9 + " s")
                + (maxConcurrency == null ? "" : ", at most " + maxConcurrency + " in flight") + warmupText;
    }

    private static String ordinal(int n) {
        int lastTwo = n % 100;
        String suffix = lastTwo >= 11 && lastTwo <= 13 ? "th"
                : switch (n % 10) {
                    case 1 -> "st";
                    case 2 -> "nd";
                    case 3 -> "rd";
                    default -> "th";
                };
        return n + suffix;
    }
}
