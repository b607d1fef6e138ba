package io.llmperf4j.engine.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The load a benchmark applies, as immutable, validated data: a closed loop at one concurrency, an open loop at one
 * rate, or a sweep over either. {@link #levels(Warmup)} expands a profile into the runners' settings, one per level.
 * Error messages name the value and the rule: "rate (-1.0) must be > 0".
 *
 * <pre>{@code
 * LoadProfile.closedLoop(8).withMaxRequests(100)
 * LoadProfile.openLoop(10.0, Duration.ofMinutes(1)).withArrival(Arrival.gamma(0.5)).withSeed(42).withMaxConcurrency(64)
 * LoadProfile.concurrencySweep(List.of(1, 5, 10, 20, 50)).withRequestsPerLevel(50)
 * LoadProfile.rateSweep(List.of(1.0, 2.0, 4.0), Duration.ofSeconds(60))
 * }</pre>
 */
public sealed interface LoadProfile
        permits LoadProfile.ClosedLoop, LoadProfile.OpenLoop, LoadProfile.ConcurrencySweep, LoadProfile.RateSweep {

    /** Run length limit per level when none is given. */
    Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);
    /** The seed guide sleeps 5 s between runs. */
    Duration DEFAULT_PAUSE = Duration.ofSeconds(5);

    static ClosedLoop closedLoop(int concurrency) {
        return new ClosedLoop(concurrency, OptionalInt.empty(), DEFAULT_TIMEOUT);
    }

    /** Poisson arrivals (seed 0) at {@code requestsPerSecond} for {@code duration}, then drained. */
    static OpenLoop openLoop(double requestsPerSecond, Duration duration) {
        return new OpenLoop(requestsPerSecond, Arrival.poisson(), OpenLoopSettings.DEFAULT_SEED, OptionalInt.empty(),
                Optional.of(duration), DEFAULT_TIMEOUT, OptionalInt.empty());
    }

    /** Poisson arrivals (seed 0) at {@code requestsPerSecond}, {@code maxRequests} of them. */
    static OpenLoop openLoop(double requestsPerSecond, int maxRequests) {
        return new OpenLoop(requestsPerSecond, Arrival.poisson(), OpenLoopSettings.DEFAULT_SEED,
                OptionalInt.of(maxRequests), Optional.empty(), DEFAULT_TIMEOUT, OptionalInt.empty());
    }

    static ConcurrencySweep concurrencySweep(List<Integer> concurrencies) {
        return new ConcurrencySweep(concurrencies, OptionalInt.empty(), DEFAULT_TIMEOUT, DEFAULT_PAUSE);
    }

    static RateSweep rateSweep(List<Double> rates, Duration durationPerLevel) {
        return new RateSweep(rates, Arrival.poisson(), OpenLoopSettings.DEFAULT_SEED, OptionalInt.empty(),
                Optional.of(durationPerLevel), DEFAULT_TIMEOUT, OptionalInt.empty(), DEFAULT_PAUSE);
    }

    /** The runner settings, one per level, each with {@code warmup}. */
    List<LoadSettings> levels(Warmup warmup);

    /** Sleep between levels; zero for a single level. */
    Duration pause();

    /** "concurrency" or "rate". */
    String levelName();

    /**
     * llmperf's closed loop at one concurrency.
     *
     * @param maxRequests measured requests; empty means one per request spec
     * @param timeout     run limit, warmup included
     * @param promptOrder which request spec each launch sends
     */
    record ClosedLoop(int concurrency, OptionalInt maxRequests, Duration timeout,
                      ClosedLoopSettings.PromptOrder promptOrder) implements LoadProfile {
        public ClosedLoop {
            new ClosedLoopSettings(concurrency, maxRequests, timeout, Warmup.NONE, promptOrder); // validates
        }

        /** In llmperf's token benchmark order ({@link ClosedLoopSettings.PromptOrder#SLOT_STRIDE}). */
        public ClosedLoop(int concurrency, OptionalInt maxRequests, Duration timeout) {
            this(concurrency, maxRequests, timeout, ClosedLoopSettings.PromptOrder.SLOT_STRIDE);
        }

        public ClosedLoop withMaxRequests(int max) {
            return new ClosedLoop(concurrency, OptionalInt.of(max), timeout, promptOrder);
        }

        public ClosedLoop withTimeout(Duration t) {
            return new ClosedLoop(concurrency, maxRequests, t, promptOrder);
        }

        public ClosedLoop withPromptOrder(ClosedLoopSettings.PromptOrder order) {
            return new ClosedLoop(concurrency, maxRequests, timeout, order);
        }

        @Override
        public List<LoadSettings> levels(Warmup warmup) {
            return List.of(new ClosedLoopSettings(concurrency, maxRequests, timeout, warmup, promptOrder));
        }

        @Override
        public Duration pause() {
            return Duration.ZERO;
        }

        @Override
        public String levelName() {
            return "concurrency";
        }
    }

    /** An open loop at one rate; see {@link OpenLoopSettings} for each component. */
    record OpenLoop(double requestsPerSecond, Arrival arrival, long seed, OptionalInt maxRequests,
                    Optional<Duration> duration, Duration timeout, OptionalInt maxConcurrency) implements LoadProfile {
        public OpenLoop {
            settings(requestsPerSecond, arrival, seed, maxRequests, duration, timeout, maxConcurrency, Warmup.NONE);
        }

        public OpenLoop withArrival(Arrival a) {
            return new OpenLoop(requestsPerSecond, a, seed, maxRequests, duration, timeout, maxConcurrency);
        }

        public OpenLoop withSeed(long s) {
            return new OpenLoop(requestsPerSecond, arrival, s, maxRequests, duration, timeout, maxConcurrency);
        }

        public OpenLoop withMaxRequests(int max) {
            return new OpenLoop(requestsPerSecond, arrival, seed, OptionalInt.of(max), duration, timeout,
                    maxConcurrency);
        }

        public OpenLoop withDuration(Duration d) {
            return new OpenLoop(requestsPerSecond, arrival, seed, maxRequests, Optional.of(d), timeout,
                    maxConcurrency);
        }

        public OpenLoop withTimeout(Duration t) {
            return new OpenLoop(requestsPerSecond, arrival, seed, maxRequests, duration, t, maxConcurrency);
        }

        public OpenLoop withMaxConcurrency(int max) {
            return new OpenLoop(requestsPerSecond, arrival, seed, maxRequests, duration, timeout,
                    OptionalInt.of(max));
        }

        @Override
        public List<LoadSettings> levels(Warmup warmup) {
            return List.of(settings(requestsPerSecond, arrival, seed, maxRequests, duration, timeout, maxConcurrency,
                    warmup));
        }

        @Override
        public Duration pause() {
            return Duration.ZERO;
        }

        @Override
        public String levelName() {
            return "rate";
        }
    }

    /**
     * A closed loop at each concurrency in turn, the seed script's {@code --concurrency-sweep 1,5,10,20,50}.
     *
     * @param requestsPerLevel measured requests per level ({@code --num-requests}); empty means one per spec
     * @param timeoutPerLevel  each level's run limit
     * @param pause            sleep between levels
     * @param promptOrder      which request spec each launch sends, at every level
     */
    record ConcurrencySweep(List<Integer> concurrencies, OptionalInt requestsPerLevel, Duration timeoutPerLevel,
                            Duration pause, ClosedLoopSettings.PromptOrder promptOrder) implements LoadProfile {

        /** In llmperf's token benchmark order ({@link ClosedLoopSettings.PromptOrder#SLOT_STRIDE}). */
        public ConcurrencySweep(List<Integer> concurrencies, OptionalInt requestsPerLevel, Duration timeoutPerLevel,
                                Duration pause) {
            this(concurrencies, requestsPerLevel, timeoutPerLevel, pause, ClosedLoopSettings.PromptOrder.SLOT_STRIDE);
        }

        public ConcurrencySweep {
            Objects.requireNonNull(promptOrder, "promptOrder");
            concurrencies = List.copyOf(concurrencies);
            if (concurrencies.isEmpty()) throw new IllegalArgumentException("concurrencies must not be empty");
            for (int i = 0; i < concurrencies.size(); i++) {
                if (concurrencies.get(i) < 1) {
                    throw new IllegalArgumentException("concurrencies[" + i + "] (" + concurrencies.get(i)
                            + ") must be >= 1");
                }
            }
            new ClosedLoopSettings(1, requestsPerLevel, timeoutPerLevel);
            requirePause(pause);
        }

        public ConcurrencySweep withRequestsPerLevel(int n) {
            return new ConcurrencySweep(concurrencies, OptionalInt.of(n), timeoutPerLevel, pause, promptOrder);
        }

        public ConcurrencySweep withTimeoutPerLevel(Duration t) {
            return new ConcurrencySweep(concurrencies, requestsPerLevel, t, pause, promptOrder);
        }

        public ConcurrencySweep withPause(Duration p) {
            return new ConcurrencySweep(concurrencies, requestsPerLevel, timeoutPerLevel, p, promptOrder);
        }

        public ConcurrencySweep withPromptOrder(ClosedLoopSettings.PromptOrder order) {
            return new ConcurrencySweep(concurrencies, requestsPerLevel, timeoutPerLevel, pause, order);
        }

        @Override
        public List<LoadSettings> levels(Warmup warmup) {
            List<LoadSettings> out = new ArrayList<>();
            for (int c : concurrencies) {
                out.add(new ClosedLoopSettings(c, requestsPerLevel, timeoutPerLevel, warmup, promptOrder));
            }
            return out;
        }

        @Override
        public String levelName() {
            return "concurrency";
        }
    }

    /** An open loop at each rate in turn; the other components apply to every level (see {@link OpenLoopSettings}). */
    record RateSweep(List<Double> rates, Arrival arrival, long seed, OptionalInt requestsPerLevel,
                     Optional<Duration> durationPerLevel, Duration timeoutPerLevel, OptionalInt maxConcurrency,
                     Duration pause) implements LoadProfile {
        public RateSweep {
            rates = List.copyOf(rates);
            if (rates.isEmpty()) throw new IllegalArgumentException("rates must not be empty");
            for (int i = 0; i < rates.size(); i++) {
                double r = rates.get(i);
                if (!(r > 0)) throw new IllegalArgumentException("rates[" + i + "] (" + r + ") must be > 0");
                if (Double.isInfinite(r)) {
                    throw new IllegalArgumentException("rates[" + i + "] (" + r + ") must be finite");
                }
            }
            settings(rates.get(0), arrival, seed, requestsPerLevel, durationPerLevel, timeoutPerLevel, maxConcurrency,
                    Warmup.NONE);
            requirePause(pause);
        }

        public RateSweep withArrival(Arrival a) {
            return new RateSweep(rates, a, seed, requestsPerLevel, durationPerLevel, timeoutPerLevel, maxConcurrency,
                    pause);
        }

        public RateSweep withSeed(long s) {
            return new RateSweep(rates, arrival, s, requestsPerLevel, durationPerLevel, timeoutPerLevel,
                    maxConcurrency, pause);
        }

        public RateSweep withRequestsPerLevel(int n) {
            return new RateSweep(rates, arrival, seed, OptionalInt.of(n), durationPerLevel, timeoutPerLevel,
                    maxConcurrency, pause);
        }

        public RateSweep withTimeoutPerLevel(Duration t) {
            return new RateSweep(rates, arrival, seed, requestsPerLevel, durationPerLevel, t, maxConcurrency, pause);
        }

        public RateSweep withMaxConcurrency(int max) {
            return new RateSweep(rates, arrival, seed, requestsPerLevel, durationPerLevel, timeoutPerLevel,
                    OptionalInt.of(max), pause);
        }

        public RateSweep withPause(Duration p) {
            return new RateSweep(rates, arrival, seed, requestsPerLevel, durationPerLevel, timeoutPerLevel,
                    maxConcurrency, p);
        }

        @Override
        public List<LoadSettings> levels(Warmup warmup) {
            List<LoadSettings> out = new ArrayList<>();
            for (double r : rates) {
                out.add(settings(r, arrival, seed, requestsPerLevel, durationPerLevel, timeoutPerLevel,
                        maxConcurrency, warmup));
            }
            return out;
        }

        @Override
        public String levelName() {
            return "rate";
        }
    }

    private static OpenLoopSettings settings(double rate, Arrival arrival, long seed, OptionalInt maxRequests,
                                             Optional<Duration> duration, Duration timeout,
                                             OptionalInt maxConcurrency, Warmup warmup) {
        return new OpenLoopSettings(rate, arrival, seed, maxRequests, duration, timeout, maxConcurrency, warmup);
    }

    private static void requirePause(Duration pause) {
        Objects.requireNonNull(pause, "pause");
        if (pause.isNegative()) throw new IllegalArgumentException("pause (" + pause + ") must be >= 0");
    }
}
