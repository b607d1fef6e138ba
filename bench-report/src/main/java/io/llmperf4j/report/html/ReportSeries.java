package io.llmperf4j.report.html;

import io.llmperf4j.model.EventTokenCounts;
import io.llmperf4j.model.ServerGone;
import io.llmperf4j.model.FailureCause;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.report.summary.Redaction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The data behind the report's charts and error table, computed from request records alone (no drawing here).
 * Per-request values follow {@code bench-report/METRICS.md}: distributions and throughput count successful
 * requests; requests in flight count every recorded request.
 */
public final class ReportSeries {

    /** Bucket widths the time charts use, in seconds: 1 s unless the run is too long for that. */
    private static final long[] BUCKET_SECONDS = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600};
    /** At most this many buckets in a time chart. */
    public static final int MAX_BUCKETS = 3600;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final double NANOS_PER_MILLI = 1e6;

    private ReportSeries() {
    }

    /**
     * An empirical CDF: {@code values} ascending and {@code fractions[i] = (i + 1) / n}, so the first point is
     * (min, 1/n) and the last (max, 1). Drawn as a step function from (min, 0).
     */
    public record Cdf(double[] values, double[] fractions) {
        public Cdf {
            values = values.clone();
            fractions = fractions.clone();
            if (values.length != fractions.length) {
                throw new IllegalArgumentException("values (" + values.length + ") and fractions ("
                        + fractions.length + ") must have the same length");
            }
        }

        public int size() {
            return values.length;
        }

        public boolean isEmpty() {
            return values.length == 0;
        }

        /**
         * At most {@code maxPoints} of the points, evenly spaced in rank, always keeping the first and the last;
         * this CDF itself when it is small enough.
         */
        public Cdf thinned(int maxPoints) {
            if (maxPoints < 2) throw new IllegalArgumentException("maxPoints (" + maxPoints + ") must be >= 2");
            int n = values.length;
            if (n <= maxPoints) return this;
            double[] v = new double[maxPoints];
            double[] f = new double[maxPoints];
            for (int k = 0; k < maxPoints; k++) {
                int i = (int) Math.round((double) k * (n - 1) / (maxPoints - 1));
                v[k] = values[i];
                f[k] = fractions[i];
            }
            return new Cdf(v, f);
        }

        /** The x and y of the step line: (min, 0) first, then every point. */
        double[][] stepPoints() {
            if (values.length == 0) return new double[][] {new double[0], new double[0]};
            double[] xs = new double[values.length + 1];
            double[] ys = new double[values.length + 1];
            xs[0] = values[0];
            ys[0] = 0;
            System.arraycopy(values, 0, xs, 1, values.length);
            System.arraycopy(fractions, 0, ys, 1, fractions.length);
            return new double[][] {xs, ys};
        }
    }

    /** The empirical CDF of the finite {@code values} (NaN and infinities are left out). */
    public static Cdf empiricalCdf(double[] values) {
        double[] sorted = Arrays.stream(values).filter(Double::isFinite).sorted().toArray();
        double[] fractions = new double[sorted.length];
        for (int i = 0; i < sorted.length; i++) fractions[i] = (double) (i + 1) / sorted.length;
        if (sorted.length > 0) fractions[sorted.length - 1] = 1.0;
        return new Cdf(sorted, fractions);
    }

    /** TTFT in ms of every successful request that has one, in record order (from the metric view). */
    public static double[] ttftMillis(List<RequestRecord> records) {
        return ttftMillisOf(view(records));
    }

    /** E2E latency in ms of every successful request, in record order (from the metric view). */
    public static double[] e2eMillis(List<RequestRecord> records) {
        return e2eMillisOf(view(records));
    }

    /** TTFT in ms of every successful request that has one, in order, as the summary's TTFT counts them. */
    public static double[] ttftMillisOf(List<RequestMetrics> requests) {
        return requests.stream().filter(r -> r.succeeded() && r.ttftNanos().isPresent())
                .mapToDouble(r -> r.ttftNanos().getAsLong() / NANOS_PER_MILLI).toArray();
    }

    /** E2E latency in ms of every successful request, in order, as the summary's E2E counts them. */
    public static double[] e2eMillisOf(List<RequestMetrics> requests) {
        return requests.stream().filter(r -> r.succeeded() && r.e2eNanos() >= 0)
                .mapToDouble(r -> r.e2eNanos() / NANOS_PER_MILLI).toArray();
    }

    private static List<RequestMetrics> view(List<RequestRecord> records) {
        return records.stream().map(r -> RequestMetrics.from(r, TokenCounting.DEFAULT)).toList();
    }

    /**
     * Run-time series in fixed buckets from {@code originEpochNanos}.
     *
     * @param originEpochNanos      wall-clock time of the start of bucket 0
     * @param bucketNanos           bucket width
     * @param outputTokens          output tokens per bucket (successful requests, by their token source); a request's
     *                              n tokens are placed at its content events' arrival times, in proportion to the
     *                              tokens each event completed when those were counted ({@link EventTokenCounts}),
     *                              else evenly over the events; without event times they are spread evenly over
     *                              its TTFT-to-end interval
     * @param meanInFlight          time-averaged requests in flight per bucket (every recorded request, from send to
     *                              end); Σ meanInFlight × bucket seconds = Σ E2E seconds
     * @param peakInFlight          most requests in flight at once within each bucket
     * @param requestsWithEvents    successful counted requests whose tokens were placed at their event times
     * @param requestsWithEventTokens of those, the requests placed by their tokens per event
     * @param requestsSpreadEvenly  successful counted requests without event times, spread evenly
     */
    public record TimeBuckets(long originEpochNanos, long bucketNanos, double[] outputTokens, double[] meanInFlight,
                              int[] peakInFlight, int requestsWithEvents, int requestsWithEventTokens,
                              int requestsSpreadEvenly) {
        public TimeBuckets {
            outputTokens = outputTokens.clone();
            meanInFlight = meanInFlight.clone();
            peakInFlight = peakInFlight.clone();
        }

        public int size() {
            return outputTokens.length;
        }

        public double bucketSeconds() {
            return (double) bucketNanos / NANOS_PER_SECOND;
        }

        /** Output tokens / bucket seconds, per bucket. */
        public double[] outputTokensPerSecond() {
            double s = bucketSeconds();
            return Arrays.stream(outputTokens).map(t -> t / s).toArray();
        }

        /** Σ output tokens over all buckets. */
        public double totalOutputTokens() {
            return Arrays.stream(outputTokens).sum();
        }

        /** Start of each bucket in seconds since the origin, plus the end of the last one (size() + 1 values). */
        public double[] edgesSeconds() {
            double[] edges = new double[size() + 1];
            for (int i = 0; i < edges.length; i++) edges[i] = i * bucketSeconds();
            return edges;
        }

        /** Highest peak over the run. */
        public int maxInFlight() {
            return Arrays.stream(peakInFlight).max().orElse(0);
        }
    }

    /** 1 s, or the smallest of 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15, 30, 60 min that keeps ≤ MAX_BUCKETS buckets. */
    public static long bucketNanosFor(long spanNanos) {
        for (long s : BUCKET_SECONDS) {
            if (spanNanos <= s * NANOS_PER_SECOND * MAX_BUCKETS) return s * NANOS_PER_SECOND;
        }
        long s = (spanNanos / MAX_BUCKETS + NANOS_PER_SECOND - 1) / NANOS_PER_SECOND;
        return Math.max(1, s) * NANOS_PER_SECOND;
    }

    /** Wall-clock nanos of a record's send. */
    static long sendEpochNanos(RequestRecord r) {
        return r.startEpochMicros() * 1_000L;
    }

    /** Wall-clock nanos of a record's end (its send when the E2E is unknown). */
    static long endEpochNanos(RequestRecord r) {
        return sendEpochNanos(r) + Math.max(0, r.e2eNanos());
    }

    /**
     * Buckets covering {@code spanNanos} from the origin, extended to the last request's end.
     *
     * @throws IllegalArgumentException when {@code bucketNanos} ≤ 0
     */
    public static TimeBuckets timeBuckets(List<RequestRecord> records, TokenCounting counting, long originEpochNanos,
                                          long spanNanos, long bucketNanos) {
        Objects.requireNonNull(counting, "counting");
        if (bucketNanos <= 0) throw new IllegalArgumentException("bucketNanos (" + bucketNanos + ") must be > 0");
        long extent = Math.max(0, spanNanos);
        for (RequestRecord r : records) extent = Math.max(extent, endEpochNanos(r) - originEpochNanos);
        int n = (int) Math.max(1, Math.min(Integer.MAX_VALUE - 8, (extent + bucketNanos - 1) / bucketNanos));
        double[] tokens = new double[n];
        double[] inFlightNanos = new double[n];
        int[] peak = new int[n];
        int withEvents = 0;
        int withEventTokens = 0;
        int spread = 0;

        for (RequestRecord r : records) {
            long send = sendEpochNanos(r) - originEpochNanos;
            long end = send + Math.max(0, r.e2eNanos());
            addInterval(inFlightNanos, send, end, bucketNanos, 1.0);
            if (!r.succeeded()) continue;
            RequestMetrics metrics = RequestMetrics.from(r, counting);
            OptionalInt count = metrics.outputTokens();
            if (count.isEmpty() || count.getAsInt() == 0) continue;
            int tokensOfRequest = count.getAsInt();
            long[] events = r.contentEventNanos();
            if (events.length > 0) {
                EventTokenCounts eventTokens = metrics.contentEventGaps().eventTokens();
                long counted = eventTokens.total();
                if (counted > 0) {
                    for (int e = 0; e < events.length; e++) {
                        tokens[bucket(send + events[e], bucketNanos, n)] += tokenShare(tokensOfRequest,
                                eventTokens.count(e), counted);
                    }
                    withEventTokens++;
                } else {
                    double share = (double) tokensOfRequest / events.length;
                    for (int e = 0; e < events.length; e++) tokens[bucket(send + events[e], bucketNanos, n)] += share;
                }
                withEvents++;
            } else {
                long from = r.ttftNanos() >= 0 ? send + r.ttftNanos() : send;
                long to = Math.max(from, end);
                if (to == from) {
                    tokens[bucket(from, bucketNanos, n)] += tokensOfRequest;
                } else {
                    addInterval(tokens, from, to, bucketNanos, (double) tokensOfRequest / (to - from));
                }
                spread++;
            }
        }

        // peak in flight: sweep over sends (+1) and ends (-1), ends first at equal times
        List<long[]> changes = new ArrayList<>(2 * records.size());
        for (RequestRecord r : records) {
            long send = sendEpochNanos(r) - originEpochNanos;
            long end = send + Math.max(0, r.e2eNanos());
            if (end > send) {
                changes.add(new long[] {send, +1});
                changes.add(new long[] {end, -1});
            }
        }
        changes.sort(Comparator.<long[]>comparingLong(c -> c[0]).thenComparingLong(c -> c[1]));
        int current = 0;
        int lastBucket = 0;
        for (long[] c : changes) {
            int b = bucket(c[0], bucketNanos, n);
            for (int k = lastBucket + 1; k < b; k++) peak[k] = Math.max(peak[k], current);
            // the state before this change holds inside bucket b too, unless the change is at b's very start
            if (c[0] > (long) b * bucketNanos) peak[b] = Math.max(peak[b], current);
            current += (int) c[1];
            peak[b] = Math.max(peak[b], current);
            lastBucket = Math.max(lastBucket, b);
        }
        for (int k = lastBucket + 1; k < n; k++) peak[k] = Math.max(peak[k], current);

        double[] mean = new double[n];
        for (int i = 0; i < n; i++) mean[i] = inFlightNanos[i] / bucketNanos;
        return new TimeBuckets(originEpochNanos, bucketNanos, tokens, mean, peak, withEvents, withEventTokens, spread);
    }

    /**
     * One event's share of the request's n tokens, in proportion to the tokens it completed ({@link EventTokenCounts},
     * the same counts as per-token ITL), so a chunk of 5 tokens weighs 5 times a chunk of 1 (spread from the
     * server's n they sum to n already; the client's need not equal n, and the shares still sum to n).
     */
    private static double tokenShare(int tokensOfRequest, int eventTokens, long counted) {
        return (double) tokensOfRequest * Math.max(0, eventTokens) / counted;
    }

    private static int bucket(long t, long bucketNanos, int n) {
        long b = Math.floorDiv(t, bucketNanos);
        return (int) Math.max(0, Math.min(n - 1, b));
    }

    /** Adds {@code ratePerNanos} × (overlap of [from, to) with each bucket) to {@code into}. */
    private static void addInterval(double[] into, long from, long to, long bucketNanos, double ratePerNanos) {
        if (to <= from) return;
        int n = into.length;
        long first = Math.floorDiv(from, bucketNanos);
        long last = Math.floorDiv(to - 1, bucketNanos);
        for (long b = first; b <= last; b++) {
            long lo = Math.max(from, b * bucketNanos);
            long hi = Math.min(to, (b + 1) * bucketNanos);
            int idx = (int) Math.max(0, Math.min(n - 1, b));
            into[idx] += ratePerNanos * (hi - lo);
        }
    }

    /**
     * Failed requests with one kind, code and cause.
     *
     * @param kind             the failure kind
     * @param code             the HTTP status, the stream error's code, or -1
     * @param count            failures with this kind and code
     * @param distinctMessages how many different messages they had
     * @param examples         the first different messages (key-shaped text redacted), in record order
     * @param cause            what they point at in their run ({@link FailureCause#of(List)}: a failed connection
     *                         after the server had answered, a success or a failed request's first content, is the
     *                         server going away, not the configuration)
     */
    public record ErrorGroup(FailureKind kind, int code, int count, int distinctMessages, List<String> examples,
                             FailureCause cause) {
        public ErrorGroup {
            Objects.requireNonNull(kind, "kind");
            examples = List.copyOf(examples);
            if (cause == null) cause = FailureCause.of(kind, code);
        }

        /** A group whose cause is its kind's and code's alone. */
        public ErrorGroup(FailureKind kind, int code, int count, int distinctMessages, List<String> examples) {
            this(kind, code, count, distinctMessages, examples, null);
        }
    }

    /**
     * Failures grouped by kind, code and cause (refused connections before and after the server first answered
     * apart), most frequent first (then kind order, then code).
     */
    public static List<ErrorGroup> errorGroups(List<RequestRecord> records, int maxExamples) {
        return errorGroups(records, maxExamples, null);
    }

    /** As above for a sweep's level, read with its earlier levels' answer ({@code earlier}; null for none). */
    public static List<ErrorGroup> errorGroups(List<RequestRecord> records, int maxExamples,
                                               ServerGone.Earlier earlier) {
        Map<String, FailureKind> kinds = new LinkedHashMap<>();
        Map<String, Integer> codes = new LinkedHashMap<>();
        Map<String, FailureCause> causes = new LinkedHashMap<>();
        Map<String, Integer> counts = new LinkedHashMap<>();
        Map<String, LinkedHashSet<String>> messages = new LinkedHashMap<>();
        List<FailureCause> causeOf = FailureCause.of(records, earlier);
        for (int i = 0; i < records.size(); i++) {
            RequestRecord r = records.get(i);
            if (r.succeeded()) continue;
            String key = r.failure().kind().name() + "/" + r.failure().code() + "/" + causeOf.get(i);
            kinds.putIfAbsent(key, r.failure().kind());
            codes.putIfAbsent(key, r.failure().code());
            causes.putIfAbsent(key, causeOf.get(i));
            counts.merge(key, 1, Integer::sum);
            messages.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(Redaction.secrets(r.failure().message()));
        }
        List<ErrorGroup> groups = new ArrayList<>();
        for (String key : counts.keySet()) {
            List<String> distinct = new ArrayList<>(messages.get(key));
            groups.add(new ErrorGroup(kinds.get(key), codes.get(key), counts.get(key), distinct.size(),
                    distinct.subList(0, Math.min(maxExamples, distinct.size())), causes.get(key)));
        }
        groups.sort(Comparator.comparingInt(ErrorGroup::count).reversed()
                .thenComparing(ErrorGroup::kind)
                .thenComparingInt(ErrorGroup::code));
        return groups;
    }
}
