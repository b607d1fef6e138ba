package io.llmperf4j.engine.load;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * An open-loop run: requests are sent at precomputed intended times, whatever the server does.
 *
 * <p>The schedule ({@link #schedule()}) holds the warmup arrivals, then measured arrivals until {@code maxRequests}
 * of them exist or the next one would fall at or after {@code duration} past the measured window's start, whichever
 * comes first. After the last arrival is sent the runner waits for the requests in flight; {@code timeout} bounds the
 * whole run (warmup included): at the limit requests in flight are cancelled and recorded as CANCELLED, and arrivals
 * not yet sent are counted as not sent (never silently dropped). Set {@code timeout} equal to warmup plus
 * {@code duration} to end sharply at the end of the window instead of draining.
 *
 * @param requestsPerSecond the mean arrival rate R (finite, &gt; 0)
 * @param arrival           how intervals are spread around {@code 1/R}
 * @param seed              the schedule's seed: the same settings and seed give the same schedule
 * @param maxRequests       measured arrivals to schedule, or empty
 * @param duration          measured window length for scheduling, or empty; at least one of the two is set
 * @param timeout           run duration limit, warmup included
 * @param maxConcurrency    requests in flight at most, or empty for no cap; an arrival that finds the cap full
 *                          queues (FIFO) and is sent when a request ends, and its latency from the intended send
 *                          time includes that wait
 * @param warmup            arrivals kept apart from the results
 * @param sessionArrivals   each arrival starts a multi-turn session (the rate counts sessions, the requests are
 *                          their turns): what {@link SessionRunner} ran, as its result's settings say; it changes
 *                          the words of {@link #describe()} only
 */
public record OpenLoopSettings(
        double requestsPerSecond,
        Arrival arrival,
        long seed,
        OptionalInt maxRequests,
        Optional<Duration> duration,
        Duration timeout,
        OptionalInt maxConcurrency,
        Warmup warmup,
        boolean sessionArrivals) implements LoadSettings {

    public static final long DEFAULT_SEED = 0L;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

    public OpenLoopSettings {
        if (!(requestsPerSecond > 0)) {
            throw new IllegalArgumentException("rate (" + requestsPerSecond + ") must be > 0");
        }
        if (Double.isInfinite(requestsPerSecond)) {
            throw new IllegalArgumentException("rate (" + requestsPerSecond + ") must be finite; for a burst use a "
                    + "closed loop");
        }
        Objects.requireNonNull(arrival, "arrival");
        Objects.requireNonNull(maxRequests, "maxRequests");
        Objects.requireNonNull(duration, "duration");
        if (maxRequests.isPresent() && maxRequests.getAsInt() < 1) {
            throw new IllegalArgumentException("maxRequests (" + maxRequests.getAsInt() + ") must be >= 1");
        }
        if (duration.isPresent() && (duration.get().isNegative() || duration.get().isZero())) {
            throw new IllegalArgumentException("duration (" + duration.get() + ") must be > 0");
        }
        if (maxRequests.isEmpty() && duration.isEmpty()) {
            throw new IllegalArgumentException("an open loop needs maxRequests or duration (or both) to end its "
                    + "schedule");
        }
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout (" + timeout + ") must be > 0");
        }
        Objects.requireNonNull(maxConcurrency, "maxConcurrency");
        if (maxConcurrency.isPresent() && maxConcurrency.getAsInt() < 1) {
            throw new IllegalArgumentException("maxConcurrency (" + maxConcurrency.getAsInt() + ") must be >= 1");
        }
        warmup = warmup == null ? Warmup.NONE : warmup;
    }

    /** Arrivals of single requests. */
    public OpenLoopSettings(double requestsPerSecond, Arrival arrival, long seed, OptionalInt maxRequests,
                            Optional<Duration> duration, Duration timeout, OptionalInt maxConcurrency, Warmup warmup) {
        this(requestsPerSecond, arrival, seed, maxRequests, duration, timeout, maxConcurrency, warmup, false);
    }

    /** Poisson arrivals, seed {@link #DEFAULT_SEED}, timeout {@link #DEFAULT_TIMEOUT}, no cap, no warmup. */
    public static Builder builder(double requestsPerSecond) {
        return new Builder(requestsPerSecond);
    }

    public Builder toBuilder() {
        Builder b = new Builder(requestsPerSecond).arrival(arrival).seed(seed).timeout(timeout).warmup(warmup)
                .sessionArrivals(sessionArrivals);
        b.maxRequests = maxRequests;
        b.duration = duration;
        b.maxConcurrency = maxConcurrency;
        return b;
    }

    /** The intended send times of every arrival, warmup included; computed, deterministic. */
    public ArrivalSchedule schedule() {
        return ArrivalSchedule.generate(arrival, requestsPerSecond, seed, warmup, maxRequests, duration);
    }

    @Override
    public OpenLoopSettings withWarmup(Warmup w) {
        return toBuilder().warmup(w).build();
    }

    /** The same load, its arrivals starting multi-turn sessions. */
    public OpenLoopSettings withSessionArrivals() {
        return sessionArrivals ? this : toBuilder().sessionArrivals(true).build();
    }

    public OpenLoopSettings withRequestsPerSecond(double rate) {
        Builder b = toBuilder();
        b.requestsPerSecond = rate;
        return b.build();
    }

    @Override
    public double level() {
        return requestsPerSecond;
    }

    @Override
    public String levelName() {
        return "rate";
    }

    @Override
    public Map<String, String> params() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("rate", LoadSettings.formatLevel(requestsPerSecond));
        p.put("arrival", arrival.toString());
        maxConcurrency.ifPresent(c -> p.put("maxConcurrency", Integer.toString(c)));
        return p;
    }

    /**
     * "open loop, 5 req/s poisson, at most 4 in flight"; with {@link #sessionArrivals()} in the console's words
     * (bench-run's LoadConsole), "open loop, 5 sessions/s, poisson session arrivals, at most 4 requests in flight";
     * a trace replay names its trace instead of drawn arrivals:
     * "trace replay of mooncake:t.jsonl (5 requests over 1.5 s, speedup 2), mean 2.67 req/s", and a trace whose
     * requests share one timestamp, which has no rate, what it sends: "trace replay of mooncake:t.jsonl (3 requests
     * over 0 s, speedup 1), all 3 requests at t=0 (a burst)"; with sessions, their starts: "trace replay of
     * mooncake:t.jsonl (2 sessions (5 requests) starting over 0.2 s, speedup 1), mean 5 sessions/s", and with
     * requests outside any session "(2 sessions (4 requests) and 3 single requests starting over 0.25 s, speedup 1),
     * mean 16 arrivals/s", as trace-stats counts them.
     */
    @Override
    public String describe() {
        if (arrival instanceof Arrival.Trace t) {
            // with sessions the rate counts their starts (and single requests), as the details do
            String rate = t.startsAtOneInstant().orElse("mean " + Arrival.Trace.significant(requestsPerSecond) + " "
                    + t.rateUnit());
            return "trace replay of " + t.details() + ", " + rate
                    + (maxConcurrency.isPresent() ? ", at most " + maxConcurrency.getAsInt() + " in flight" : "");
        }
        if (sessionArrivals) { // the rate counts sessions; the cap counts their turns
            return "open loop, " + LoadSettings.formatLevel(requestsPerSecond) + " sessions/s, " + arrival
                    + " session arrivals" + (maxConcurrency.isPresent()
                    ? ", at most " + maxConcurrency.getAsInt() + (maxConcurrency.getAsInt() == 1 ? " request"
                    : " requests") + " in flight" : "");
        }
        return "open loop, " + LoadSettings.formatLevel(requestsPerSecond) + " req/s " + arrival
                + (maxConcurrency.isPresent() ? ", at most " + maxConcurrency.getAsInt() + " in flight" : "");
    }

    /** Collects options; unset ones take the defaults named in {@link #builder}. */
    public static final class Builder {
        private double requestsPerSecond;
        private Arrival arrival = Arrival.poisson();
        private long seed = DEFAULT_SEED;
        private OptionalInt maxRequests = OptionalInt.empty();
        private Optional<Duration> duration = Optional.empty();
        private Duration timeout = DEFAULT_TIMEOUT;
        private OptionalInt maxConcurrency = OptionalInt.empty();
        private Warmup warmup = Warmup.NONE;
        private boolean sessionArrivals;

        private Builder(double requestsPerSecond) {
            this.requestsPerSecond = requestsPerSecond;
        }

        public Builder arrival(Arrival a) {
            this.arrival = a;
            return this;
        }

        public Builder seed(long s) {
            this.seed = s;
            return this;
        }

        public Builder maxRequests(int max) {
            this.maxRequests = OptionalInt.of(max);
            return this;
        }

        public Builder duration(Duration d) {
            this.duration = Optional.of(d);
            return this;
        }

        public Builder timeout(Duration t) {
            this.timeout = t;
            return this;
        }

        public Builder maxConcurrency(int max) {
            this.maxConcurrency = OptionalInt.of(max);
            return this;
        }

        public Builder warmup(Warmup w) {
            this.warmup = w;
            return this;
        }

        /** Each arrival starts a multi-turn session (see {@link OpenLoopSettings#sessionArrivals()}). */
        public Builder sessionArrivals(boolean sessions) {
            this.sessionArrivals = sessions;
            return this;
        }

        public OpenLoopSettings build() {
            return new OpenLoopSettings(requestsPerSecond, arrival, seed, maxRequests, duration, timeout,
                    maxConcurrency, warmup, sessionArrivals);
        }
    }
}
