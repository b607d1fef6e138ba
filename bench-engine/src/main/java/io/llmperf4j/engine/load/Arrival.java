package io.llmperf4j.engine.load;

import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * How open-loop arrivals are spaced in time. Every shape has a mean interval of {@code 1/R} seconds for a rate of
 * {@code R} requests per second; they differ in variance:
 * <ul>
 *   <li>{@link Constant}: every interval is exactly {@code 1/R} (variance 0; vLLM's {@code --burstiness inf});</li>
 *   <li>{@link Poisson}: exponential intervals (variance {@code 1/R²}; a Poisson process, vLLM's default);</li>
 *   <li>{@link Gamma}: gamma intervals with shape {@code k} and scale {@code 1/(kR)} (variance {@code 1/(kR²)}):
 *       {@code k < 1} is burstier than Poisson, {@code k > 1} smoother, {@code k = 1} is Poisson (vLLM's
 *       {@code --burstiness k}).</li>
 *   <li>{@link Trace}: a replayed trace's own timestamps ({@code --trace}); nothing is drawn.</li>
 * </ul>
 * Draws use only {@link SplittableRandom#nextDouble()} and {@link StrictMath}, so a seed gives the same schedule on
 * every JVM and platform.
 */
public sealed interface Arrival permits Arrival.Constant, Arrival.Poisson, Arrival.Gamma, Arrival.Trace {

    /** Evenly spaced arrivals. */
    static Arrival constant() {
        return new Constant();
    }

    /** A Poisson process: exponential intervals. */
    static Arrival poisson() {
        return new Poisson();
    }

    /** Gamma-distributed intervals with shape {@code shape} (the burstiness). */
    static Arrival gamma(double shape) {
        return new Gamma(shape);
    }

    /**
     * vLLM's {@code --burstiness}: infinity means constant, 1 means Poisson, anything else a gamma shape.
     *
     * @throws IllegalArgumentException when {@code burstiness} is not &gt; 0
     */
    static Arrival ofBurstiness(double burstiness) {
        if (burstiness == Double.POSITIVE_INFINITY) return constant();
        if (burstiness == 1.0) return poisson();
        return gamma(burstiness);
    }

    /** "constant", "poisson", "gamma" or "trace". */
    String name();

    /** Draws the next interval in seconds for {@code requestsPerSecond}, advancing {@code random}. */
    double nextIntervalSeconds(SplittableRandom random, double requestsPerSecond);

    /** The variance of an interval in s², for {@code requestsPerSecond}. */
    double intervalVarianceSeconds2(double requestsPerSecond);

    record Constant() implements Arrival {
        @Override
        public String name() {
            return "constant";
        }

        @Override
        public double nextIntervalSeconds(SplittableRandom random, double requestsPerSecond) {
            return 1.0 / requestsPerSecond;
        }

        @Override
        public double intervalVarianceSeconds2(double requestsPerSecond) {
            return 0;
        }

        @Override
        public String toString() {
            return name();
        }
    }

    record Poisson() implements Arrival {
        @Override
        public String name() {
            return "poisson";
        }

        @Override
        public double nextIntervalSeconds(SplittableRandom random, double requestsPerSecond) {
            return exponential(random) / requestsPerSecond;
        }

        @Override
        public double intervalVarianceSeconds2(double requestsPerSecond) {
            return 1.0 / (requestsPerSecond * requestsPerSecond);
        }

        @Override
        public String toString() {
            return name();
        }
    }

    /** @param shape the gamma shape k (burstiness), finite and &gt; 0 */
    record Gamma(double shape) implements Arrival {
        public Gamma {
            if (!(shape > 0) || Double.isInfinite(shape)) {
                throw new IllegalArgumentException("gamma shape (" + shape + ") must be > 0 and finite");
            }
        }

        @Override
        public String name() {
            return "gamma";
        }

        @Override
        public double nextIntervalSeconds(SplittableRandom random, double requestsPerSecond) {
            // scale θ = 1/(kR): mean kθ = 1/R
            return standardGamma(random, shape) / (shape * requestsPerSecond);
        }

        @Override
        public double intervalVarianceSeconds2(double requestsPerSecond) {
            return 1.0 / (shape * requestsPerSecond * requestsPerSecond);
        }

        @Override
        public String toString() {
            return "gamma(k=" + shape + ")";
        }
    }

    /**
     * A replayed trace's own (scaled) timestamps: the runner sends each request at its time in the trace, not at a
     * drawn interval, and no seed is involved. The settings' rate is the trace's mean, so the nominal schedule this
     * arrival generates ({@code 1/R} apart) has the trace's request count and span; it only counts the arrivals
     * (progress, stop conditions), the trace's timestamps are what is sent on.
     *
     * @param source   the trace as given, FORMAT:FILE
     * @param requests the requests replayed (after the cut)
     * @param span     first to last replayed timestamp, after the speedup
     * @param speedup  the trace's timestamps were divided by this
     * @param cut      only the requests within this first stretch of the sped-up trace were kept, or null for all
     * @param sessions     the multi-turn sessions the requests belong to (their starts are arrivals), or 0 for a
     *                     trace without sessions
     * @param sessionSpan  first to last arrival (session start, or single request), after the speedup; null without
     *                     sessions
     * @param singles      a trace with sessions: its requests without a session, each an arrival of its own (not a
     *                     session); 0 when every request has one
     * @param start        the replay began this far into the sped-up trace ({@code --trace-start}; its first request
     *                     kept was sent at 0), and {@code cut} counts from there; null from the trace's start
     */
    record Trace(String source, int requests, Duration span, double speedup, Duration cut, int sessions,
                 Duration sessionSpan, int singles, Duration start) implements Arrival {
        /** A trace without sessions, replayed from its start. */
        public Trace(String source, int requests, Duration span, double speedup, Duration cut) {
            this(source, requests, span, speedup, cut, 0, null, 0, null);
        }

        /** A trace whose every request belongs to one of its sessions, replayed from its start. */
        public Trace(String source, int requests, Duration span, double speedup, Duration cut, int sessions,
                     Duration sessionSpan) {
            this(source, requests, span, speedup, cut, sessions, sessionSpan, 0, null);
        }

        /** Replayed from the trace's start. */
        public Trace(String source, int requests, Duration span, double speedup, Duration cut, int sessions,
                     Duration sessionSpan, int singles) {
            this(source, requests, span, speedup, cut, sessions, sessionSpan, singles, null);
        }

        public Trace {
            if (sessions < 0) throw new IllegalArgumentException("sessions (" + sessions + ") must be >= 0");
            if (sessions > 0) Objects.requireNonNull(sessionSpan, "sessionSpan");
            if (singles < 0 || singles > 0 && (sessions == 0 || sessions + singles > requests)) {
                throw new IllegalArgumentException("singles (" + singles + ") must be >= 0, with sessions, and "
                        + "sessions + singles (" + (sessions + singles) + ") at most the requests (" + requests + ")");
            }
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(span, "span");
            if (requests < 1) throw new IllegalArgumentException("requests (" + requests + ") must be >= 1");
            if (!(speedup > 0) || Double.isInfinite(speedup)) {
                throw new IllegalArgumentException("speedup (" + speedup + ") must be > 0 and finite");
            }
        }

        @Override
        public String name() {
            return "trace";
        }

        /** The trace's mean interval: the nominal schedule only counts arrivals (see {@link Trace}). */
        @Override
        public double nextIntervalSeconds(SplittableRandom random, double requestsPerSecond) {
            return 1.0 / requestsPerSecond;
        }

        /** Undefined: a trace's intervals are its own, not a distribution's. */
        @Override
        public double intervalVarianceSeconds2(double requestsPerSecond) {
            return Double.NaN;
        }

        /**
         * What a trace without a rate sends, in words: "all 5 requests at t=0 (a burst)" when every timestamp is the
         * same (a span of 0), "its one request at t=0" for one request; empty when the trace has a mean rate. The
         * open loop's nominal rate of such a trace is a stand-in, never to be shown as a rate.
         */
        public Optional<String> atOneInstant() {
            if (!span.isZero()) return Optional.empty();
            return Optional.of(requests == 1 ? "its one request at t=0"
                    : "all " + requests + " requests at t=0 (a burst)");
        }

        /**
         * What a trace without a rate of arrivals starts, in words: {@link #atOneInstant} without sessions; with
         * them, when every session starts at one instant, "its one session at t=0", "all 2 sessions start at t=0",
         * with single requests "all 5 arrivals start at t=0"; empty when the arrivals have a mean rate.
         */
        public Optional<String> startsAtOneInstant() {
            if (sessions == 0) return atOneInstant();
            if (!sessionSpan.isZero()) return Optional.empty();
            if (singles > 0) return Optional.of("all " + (sessions + singles) + " arrivals start at t=0");
            return Optional.of(sessions == 1 ? "its one session at t=0" : "all " + sessions + " sessions start at t=0");
        }

        /**
         * The unit of the trace's rate, what its arrivals are: "req/s" without sessions, "sessions/s" (their starts),
         * "arrivals/s" for sessions and single requests together (trace-stats' word).
         */
        public String rateUnit() {
            return sessions == 0 ? "req/s" : singles == 0 ? "sessions/s" : "arrivals/s";
        }

        /**
         * "mooncake:t.jsonl (5 requests over 1.5 s, speedup 2, first 10 s)" ("from 3600 s for 600 s" with
         * {@code --trace-start}); with sessions their starts, as the rate
         * counts them: "mooncake:t.jsonl (2 sessions (5 requests) starting over 0.2 s, speedup 1)", and a request
         * without a session as one of its own: "(2 sessions (4 requests) and 3 single requests starting over 0.25 s,
         * ...)".
         */
        public String details() {
            String what = sessions > 0
                    ? arrivalWords() + " starting over " + significant(sessionSpan.toNanos() / 1e9)
                    : requests + (requests == 1 ? " request" : " requests") + " over "
                    + significant(span.toNanos() / 1e9);
            return source + " (" + what + " s, speedup " + significant(speedup) + window() + ")";
        }

        /** ", first 10 s"; from --trace-start: ", from 3600 s", ", from 3600 s for 600 s"; "" for the whole trace. */
        private String window() {
            String length = cut == null ? "" : seconds(cut) + " s";
            if (start == null) return cut == null ? "" : ", first " + length;
            return ", from " + seconds(start) + " s" + (cut == null ? "" : " for " + length);
        }

        /** The flag's value as given, to the nanosecond (3 significant digits would echo 3601 as 3600). */
        private static String seconds(Duration d) {
            return BigDecimal.valueOf(d.toNanos()).movePointLeft(9).stripTrailingZeros().toPlainString();
        }

        /** "2 sessions (5 requests)", or with single requests "2 sessions (4 requests) and 3 single requests". */
        private String arrivalWords() {
            int inSessions = requests - singles;
            String s = sessions + (sessions == 1 ? " session (" : " sessions (") + inSessions
                    + (inSessions == 1 ? " request)" : " requests)");
            return singles == 0 ? s : s + " and " + singles + (singles == 1 ? " single request" : " single requests");
        }

        @Override
        public String toString() {
            return "trace " + details();
        }

        /** 3 significant digits, without trailing zeros: 2.67, 1.5, 2, 1230. */
        public static String significant(double v) {
            if (!Double.isFinite(v)) return String.valueOf(v);
            return new BigDecimal(v).round(new MathContext(3)).stripTrailingZeros().toPlainString();
        }
    }

    /** Exp(1) by inversion; {@code 1 - u} is in (0, 1], so the log is finite. */
    private static double exponential(SplittableRandom random) {
        return -StrictMath.log(1.0 - random.nextDouble());
    }

    /** Gamma(k, 1) by Marsaglia and Tsang (2000), with the {@code U^(1/k)} boost for {@code k < 1}. */
    private static double standardGamma(SplittableRandom random, double k) {
        if (k < 1.0) {
            double u = 1.0 - random.nextDouble(); // (0, 1]
            return standardGamma(random, k + 1.0) * StrictMath.pow(u, 1.0 / k);
        }
        double d = k - 1.0 / 3.0;
        double c = 1.0 / StrictMath.sqrt(9.0 * d);
        while (true) {
            double x;
            double v;
            do {
                x = standardNormal(random);
                v = 1.0 + c * x;
            } while (v <= 0);
            v = v * v * v;
            double u = random.nextDouble();
            if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
            if (u > 0 && StrictMath.log(u) < 0.5 * x * x + d * (1.0 - v + StrictMath.log(v))) return d * v;
        }
    }

    /** N(0, 1) by Marsaglia's polar method (one of each pair is used: simpler, and still reproducible). */
    private static double standardNormal(SplittableRandom random) {
        while (true) {
            double a = 2.0 * random.nextDouble() - 1.0;
            double b = 2.0 * random.nextDouble() - 1.0;
            double s = a * a + b * b;
            if (s > 0 && s < 1) return a * StrictMath.sqrt(-2.0 * StrictMath.log(s) / s);
        }
    }
}
