package io.llmperf4j.servermetrics.summary;

import io.llmperf4j.servermetrics.engines.KnownFamilies;
import io.llmperf4j.servermetrics.engines.KnownFamily;
import io.llmperf4j.servermetrics.engines.MetricRole;
import io.llmperf4j.servermetrics.engines.ServerEngine;
import io.llmperf4j.servermetrics.exposition.ExpositionParser;
import io.llmperf4j.servermetrics.exposition.Labels;
import io.llmperf4j.servermetrics.timeline.Scrape;
import io.llmperf4j.servermetrics.timeline.Series;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Computes the {@link ServerSideSummary} of a timeline over the measured window.
 *
 * <p>Gauges' peaks (running, waiting, KV cache) are read from the scrapes strictly inside the window (none inside:
 * not observed, null; the edge scrapes read an idle server). Counters and histograms are increases from the
 * last successful scrape at or before the window's start to the first at or after its end, summed over consecutive
 * scrapes so a reset counts what came after it; a counter keeps only the share of each interval inside the window
 * (tokens/s comparable with the client's over the same window), a histogram keeps whole requests. A counter that
 * goes back is a reset (the server restarted): counted from 0 after it, as Prometheus' {@code increase()} does, with
 * a warning, since what the server did between the scrape before and the restart is lost. A level without warmup
 * ({@link #summarizeWholeLevel}) takes its counters whole, from its first scrape to its last, in the same pass; one
 * with warmup ({@link #summarizeAfterWarmup}) from the scrape at the warmup's end. An edge of the window no
 * successful scrape read (a failed scrape there) is a warning, and a whole count's rate is over the part covered.
 *
 * <p>Where the server labels its series by model (vLLM's and SGLang's {@code model_name}), only the run's model's
 * series count; without such a label, or with none for the run's model, the series are added up (and a warning says
 * the figures may include other traffic). Series that differ only in other labels (vLLM's {@code engine}, SGLang's
 * {@code tp_rank}) are added up, like PromQL's {@code sum}; the KV cache takes the fullest. A latency histogram's
 * buckets are merged only across series with the same bucket bounds: where series of different layouts both
 * observed requests, the quantiles come from the layout with the most observations, with a warning.
 */
public final class ServerSideSummarizer {

    private static final double NANOS_PER_SECOND = 1e9;
    /**
     * How far a scrape may lie on the wrong side of a window's edge before the edge counts as not bracketed: the
     * window is placed on the scrapes' clock by its wall-clock start, to the millisecond.
     */
    public static final long EDGE_SLACK_NANOS = 5_000_000L;

    private final ServerMetricsTimeline timeline;
    private final List<Scrape> ok;
    private final List<Scrape> inSpan;
    private final List<Scrape> inside;
    private final int first;
    private final int last;
    private final ServerEngine engine;
    /** The span the scrapes, counters and histograms are read over: the window, or the whole level. */
    private final long spanStartNanos;
    private final long spanEndNanos;
    /** The measured window: the gauges' peaks come from the scrapes strictly inside it. */
    private final long windowStartNanos;
    private final long windowEndNanos;
    /** Counters whole from the span's first scrape to its last, per second of the window the scrapes cover. */
    private final boolean wholeLevel;
    /**
     * Where a whole count starts: the window's start, or (after a warmup) the instant its last request ended; null
     * when the counters are interpolated to the window's edges.
     */
    private final Long countStartNanos;
    /** The count starts at the warmup's end, on a scrape asked for then ({@link #summarizeAfterWarmup}). */
    private final boolean afterWarmup;
    private final Map<String, String> families = new LinkedHashMap<>();
    private final ModelSeries models;
    /** The first counter reset seen: the scrapes before and after it, offsets in nanoseconds. */
    private long[] reset;
    private final List<String> layoutWarnings = new ArrayList<>();

    private ServerSideSummarizer(ServerMetricsTimeline timeline, long spanStart, long spanEnd, long windowStart,
                                 long windowEnd, Long countStart, boolean afterWarmup, String model) {
        this.timeline = timeline;
        this.models = new ModelSeries(model);
        this.spanStartNanos = spanStart;
        this.spanEndNanos = spanEnd;
        this.windowStartNanos = windowStart;
        this.windowEndNanos = windowEnd;
        this.wholeLevel = countStart != null;
        this.countStartNanos = countStart;
        this.afterWarmup = afterWarmup;
        this.ok = timeline.successfulScrapes();
        int b = -1;
        for (int i = 0; i < ok.size() && ok.get(i).offsetNanos() <= spanStart; i++) b = i;
        if (b < 0 && !ok.isEmpty()) b = 0;
        int e = -1;
        for (int i = 0; i < ok.size(); i++) {
            if (ok.get(i).offsetNanos() >= spanEnd) {
                e = i;
                break;
            }
        }
        if (e < 0) e = ok.size() - 1;
        this.first = b;
        this.last = e;
        this.inSpan = ok.stream().filter(s -> s.offsetNanos() >= spanStart && s.offsetNanos() <= spanEnd).toList();
        this.inside = ok.stream().filter(s -> s.offsetNanos() > windowStart && s.offsetNanos() < windowEnd).toList();
        Set<String> names = timeline.series().stream().map(Series::name).collect(Collectors.toSet());
        this.engine = ServerEngine.detect(names);
    }

    /**
     * The server's view of the window {@code [windowStartOffsetNanos, windowEndOffsetNanos]}, both measured from the
     * run's start like every scrape in the timeline (the engine's measured window: its measure-start offset and
     * that plus the measured duration).
     */
    public static ServerSideSummary summarize(ServerMetricsTimeline timeline, long windowStartOffsetNanos,
                                              long windowEndOffsetNanos) {
        return summarize(timeline, windowStartOffsetNanos, windowEndOffsetNanos, null);
    }

    /**
     * As {@link #summarize(ServerMetricsTimeline, long, long)}, from {@code model}'s series alone where the server
     * labels its series by model; null adds up every model's.
     */
    public static ServerSideSummary summarize(ServerMetricsTimeline timeline, long windowStartOffsetNanos,
                                              long windowEndOffsetNanos, String model) {
        checkWindow(windowStartOffsetNanos, windowEndOffsetNanos);
        return new ServerSideSummarizer(timeline, windowStartOffsetNanos, windowEndOffsetNanos,
                windowStartOffsetNanos, windowEndOffsetNanos, null, false, model).summary();
    }

    /**
     * The server's view of a level every token of which was the run's (no warmup), in one pass: counters and
     * histograms whole, from the first successful scrape (the baseline before the first send) to the last (after
     * the last record), and per second of the measured window {@code [windowStartOffsetNanos,
     * windowEndOffsetNanos]}, so {@code generation_tokens} and {@code generation_tokens_per_s} compare one to one
     * with the client's output tokens and tok/s; the gauges' peaks only from the scrapes strictly inside the window
     * (the final scrape, after the last record, reads an idle server: a short level's peaks would be 0, not "not
     * observed"). {@code model} as in {@link #summarize(ServerMetricsTimeline, long, long, String)}.
     */
    public static ServerSideSummary summarizeWholeLevel(ServerMetricsTimeline timeline, long windowStartOffsetNanos,
                                                        long windowEndOffsetNanos, String model) {
        checkWindow(windowStartOffsetNanos, windowEndOffsetNanos);
        List<Scrape> ok = timeline.successfulScrapes();
        long spanStart = ok.isEmpty() ? windowStartOffsetNanos
                : Math.min(windowStartOffsetNanos, ok.get(0).offsetNanos());
        long spanEnd = ok.isEmpty() ? windowEndOffsetNanos
                : Math.max(windowEndOffsetNanos, ok.get(ok.size() - 1).offsetNanos());
        return new ServerSideSummarizer(timeline, spanStart, spanEnd, windowStartOffsetNanos, windowEndOffsetNanos,
                windowStartOffsetNanos, false, model).summary();
    }

    /**
     * The server's view of a level with warmup, whose last warmup request ended at {@code warmupEndOffsetNanos}
     * (null when not known): counters and histograms whole from a baseline scrape to the last (after the last record),
     * per second of the part of the measured window they cover. The baseline is the last successful scrape read
     * before the window opened and after the warmup's last request ended (nothing ran between it and the window's
     * start: exact); else, the warmup still running when the window opened (a closed loop re-sends as each warmup
     * request ends), the first successful scrape at or after the window's start (the run asks for one then): the
     * counters then start a moment into the window, the warmup's requests still running after it counted as the
     * client's delivered tokens count them, and {@code counted_from_s} says where. Null when no successful scrape
     * lies there before the window's end: {@link #summarize} then interpolates.
     */
    public static ServerSideSummary summarizeAfterWarmup(ServerMetricsTimeline timeline, Long warmupEndOffsetNanos,
                                                         long windowStartOffsetNanos, long windowEndOffsetNanos,
                                                         String model) {
        checkWindow(windowStartOffsetNanos, windowEndOffsetNanos);
        List<Scrape> ok = timeline.successfulScrapes();
        // a scrape sent after the warmup's last request ended and before the window opened read counters nothing
        // had moved since the warmup's end: its exchange may end after the opening, its read counts as there
        Scrape baseline = null;
        for (Scrape s : ok) {
            if (s.offsetNanos() - s.durationNanos() / 2 > windowStartOffsetNanos + EDGE_SLACK_NANOS) break;
            if (warmupEndOffsetNanos != null && s.offsetNanos() >= warmupEndOffsetNanos) baseline = s;
        }
        long countStart = windowStartOffsetNanos;
        if (baseline != null) {
            countStart = Math.max(windowStartOffsetNanos, baseline.offsetNanos());
        } else {
            baseline = ok.stream().filter(s -> s.offsetNanos() >= windowStartOffsetNanos - EDGE_SLACK_NANOS)
                    .findFirst().orElse(null);
        }
        if (baseline == null || baseline.offsetNanos() >= windowEndOffsetNanos
                || baseline == ok.get(ok.size() - 1)) {
            return null;
        }
        long spanEnd = Math.max(windowEndOffsetNanos, ok.get(ok.size() - 1).offsetNanos());
        return new ServerSideSummarizer(timeline, baseline.offsetNanos(), spanEnd, windowStartOffsetNanos,
                windowEndOffsetNanos, countStart, true, model).summary();
    }

    private static void checkWindow(long startNanos, long endNanos) {
        if (endNanos < startNanos) {
            throw new IllegalArgumentException("window end (" + endNanos + " ns) is before its start ("
                    + startNanos + " ns)");
        }
    }

    private ServerSideSummary summary() {
        int scrapes = 0;
        int failed = 0;
        for (Scrape s : timeline.scrapes()) {
            if (s.offsetNanos() >= spanStartNanos && s.offsetNanos() <= spanEndNanos) {
                scrapes++;
                if (!s.ok()) failed++;
            }
        }
        double windowS = (windowEndNanos - windowStartNanos) / NANOS_PER_SECOND;
        boolean bracketed = engine != null && first >= 0 && last > first;
        Double spanS = bracketed ? (ok.get(last).offsetNanos() - ok.get(first).offsetNanos()) / NANOS_PER_SECOND : null;
        // a whole count's rate is per second of the window its scrapes cover: all of it unless an edge scrape failed
        double perS = wholeLevel ? Math.max(0, windowS - (startGapNanos() + endGapNanos()) / NANOS_PER_SECOND)
                : bracketed ? overlap(ok.get(first).offsetNanos(), ok.get(last).offsetNanos()) / NANOS_PER_SECOND : 0;
        Double generation = bracketed ? counterIncrease("generation_tokens", MetricRole.GENERATION_TOKENS) : null;
        Double prompt = bracketed ? counterIncrease("prompt_tokens", MetricRole.PROMPT_TOKENS) : null;
        Double finished = bracketed ? counterIncrease("requests_finished", MetricRole.REQUESTS_FINISHED) : null;
        Double running = engine == null ? null : gaugePeak("requests_running", MetricRole.REQUESTS_RUNNING, true);
        Double waiting = engine == null ? null : gaugePeak("requests_waiting", MetricRole.REQUESTS_WAITING, true);
        Double kv = engine == null ? null : gaugePeak("kv_cache_usage", MetricRole.KV_CACHE_USAGE, false);
        Double hitRate = bracketed ? prefixCacheHitRate() : null;
        ServerLatency ttft = bracketed ? latency("ttft", MetricRole.TIME_TO_FIRST_TOKEN) : null;
        ServerLatency itl = bracketed ? latency("inter_token_latency", MetricRole.INTER_TOKEN_LATENCY) : null;
        ServerLatency e2e = bracketed ? latency("e2e_request_latency", MetricRole.E2E_REQUEST_LATENCY) : null;
        ServerLatency queue = bracketed ? latency("queue_time", MetricRole.REQUEST_QUEUE_TIME) : null;
        return new ServerSideSummary(
                engine == null ? null : engine.id,
                scrapes,
                failed,
                windowS,
                spanS,
                running,
                waiting,
                kv,
                hitRate,
                round(prompt),
                round(generation),
                generation == null || perS <= 0 ? null : generation / perS,
                round(finished),
                ttft,
                itl,
                e2e,
                queue,
                families,
                ServerSideSummary.QUANTILE_METHOD,
                windowStartNanos / NANOS_PER_SECOND,
                inside.size(),
                models.selectedModel(),
                warnings(bracketed),
                bracketed ? countedFromNanos() / NANOS_PER_SECOND : null,
                bracketed ? countedToNanos() / NANOS_PER_SECOND : null,
                reset != null,
                missing(bracketed),
                null,
                null,
                bracketed ? exchangeSeconds(ok.get(first)) : null,
                bracketed ? exchangeSeconds(ok.get(last)) : null);
    }

    /**
     * How long a scrape's exchange took; null when not known: a timeline read back from its CSV keeps no durations
     * (they read as 0, which no real exchange takes), and 0 s would claim an exact edge.
     */
    private static Double exchangeSeconds(Scrape scrape) {
        return scrape.durationNanos() > 0 ? scrape.durationNanos() / NANOS_PER_SECOND : null;
    }

    /** Where the counters' span starts, from the window's start: whole counts after any gap, else the first scrape. */
    private long countedFromNanos() {
        if (wholeLevel) return startGapNanos();
        return Math.max(0, Math.min(ok.get(first).offsetNanos(), windowEndNanos) - windowStartNanos);
    }

    /** Where the counters' span ends, from the window's start. */
    private long countedToNanos() {
        long window = windowEndNanos - windowStartNanos;
        long to = wholeLevel ? window - endGapNanos()
                : Math.min(ok.get(last).offsetNanos(), windowEndNanos) - windowStartNanos;
        return Math.max(countedFromNanos(), Math.min(window, to));
    }

    /** The console's and page's figures the engine names a family for that the server did not serve. */
    private List<String> missing(boolean counted) {
        if (engine == null) return List.of();
        List<String> out = new ArrayList<>();
        if (counted) {
            missing(out, "generation_tokens", MetricRole.GENERATION_TOKENS);
            missing(out, "prompt_tokens", MetricRole.PROMPT_TOKENS);
            missing(out, "requests_finished", MetricRole.REQUESTS_FINISHED);
        }
        missing(out, "requests_running", MetricRole.REQUESTS_RUNNING);
        missing(out, "requests_waiting", MetricRole.REQUESTS_WAITING);
        return out;
    }

    private void missing(List<String> out, String figure, MetricRole role) {
        if (families.containsKey(figure) || find(role) != null) return;
        List<KnownFamily> expected = KnownFamilies.of(engine, role);
        if (expected.isEmpty()) return; // the engine has no such family: n/a is its answer, nothing went missing
        out.add(figure + " (" + expected.get(0).valueSampleNames().get(0) + ")");
    }

    /**
     * How long after the window's start the counters' baseline was read, when a failed scrape or a late read put it
     * there; else 0. The window's baseline is read before the first send: one later than the window's start (beyond
     * the millisecond precision of its placement) missed it. After a warmup still running when the window opened, the
     * scrape asked for then answers a moment later: that moment is a gap too, and the run sets what the client saw in
     * it beside the counts ({@link ServerSideSummary#clientSameSpan()}).
     */
    private long startGapNanos() {
        if (first < 0) return 0;
        long from = countStartNanos != null ? countStartNanos : windowStartNanos;
        long baseline = ok.get(first).offsetNanos();
        if (baseline - from <= EDGE_SLACK_NANOS) return 0;
        return Math.max(0, Math.min(baseline, windowEndNanos) - Math.max(from, windowStartNanos));
    }

    /** Whether a scrape in {@code [from, until)} failed. */
    private boolean failedScrapeBetween(long from, long until) {
        return timeline.scrapes().stream().anyMatch(s -> !s.ok() && s.offsetNanos() >= from && s.offsetNanos() < until);
    }

    /** How long before the window's end the last successful scrape was read (the ones after it failed); else 0. */
    private long endGapNanos() {
        if (last < 0) return 0;
        long lastOk = ok.get(last).offsetNanos();
        if (windowEndNanos - lastOk <= EDGE_SLACK_NANOS) return 0;
        return windowEndNanos - Math.max(lastOk, windowStartNanos);
    }

    /** What makes the figures doubtful: other traffic, an edge no scrape read, a reset, mixed bucket layouts. */
    private List<String> warnings(boolean counted) {
        List<String> out = new ArrayList<>(models.warnings());
        if (counted) edgeWarnings(out);
        if (reset != null) {
            out.add(String.format(Locale.ROOT, "a counter went back between the scrapes at %.1f s and %.1f s: the "
                    + "server restarted during the level (or reset its metrics); counted from 0 after it, as "
                    + "Prometheus' increase() does, but what it did between the scrape before and the restart is "
                    + "lost, so its token and request counts are low", reset[0] / NANOS_PER_SECOND,
                    reset[1] / NANOS_PER_SECOND));
        }
        out.addAll(layoutWarnings);
        return out;
    }

    /**
     * Whether {@code warning} is one of this summarizer's words on an edge of the window no successful scrape read:
     * a run that sets the client's figures over the counters' span beside them says that gap itself, with its size
     * in tokens and requests, and leaves these out (one warning per cause).
     */
    public static boolean isEdgeWarning(String warning) {
        return isStartEdgeWarning(warning) || warning.startsWith(END_UNBRACKETED);
    }

    /**
     * Whether {@code warning} is one of this summarizer's words on a window's start no successful scrape read (the
     * baseline scrape, or the one asked for at the opening, failed): the counters then start at a later scrape, and
     * what ended before it is a miss, not a baseline's.
     */
    public static boolean isStartEdgeWarning(String warning) {
        return warning.startsWith(OPENING_FAILED) || warning.startsWith(START_UNBRACKETED);
    }

    private static final String OPENING_FAILED = "the scrape at the measured window's opening (the warmup's requests "
            + "still running) failed";
    private static final String START_UNBRACKETED = "the measured window's start is not bracketed";
    private static final String END_UNBRACKETED = "the measured window's end is not bracketed";

    /** The window's edges that no successful scrape bracketed: which, by how much, and what the counts miss. */
    private void edgeWarnings(List<String> out) {
        double startGap = startGapNanos() / NANOS_PER_SECOND;
        double endGap = endGapNanos() / NANOS_PER_SECOND;
        if (startGap <= 0 && endGap <= 0) return;
        double windowS = (windowEndNanos - windowStartNanos) / NANOS_PER_SECOND;
        String covered = String.format(Locale.ROOT, "generation_tokens_per_s is over the %.2f s of the %.2f s window "
                + "the scrapes cover", Math.max(0, windowS - startGap - endGap), windowS);
        // after a warmup, the scrape asked for at the window's opening answers a moment into it: the run sets what
        // the client saw in that moment beside the counts and warns when it held tokens; a failed one is said here
        boolean failedAtOpening = afterWarmup && failedScrapeBetween(windowStartNanos - EDGE_SLACK_NANOS,
                ok.get(first).offsetNanos());
        if (startGap > 0 && (!afterWarmup || failedAtOpening)) {
            String edge = afterWarmup
                    ? OPENING_FAILED + ": the next successful one came %.2f s after the window opened"
                    : START_UNBRACKETED + " by a successful scrape: the first came %.2f s after it (the scrape "
                    + "before it failed)";
            out.add(String.format(Locale.ROOT, edge + ", so the server's token and request counts miss what it did "
                    + "in those %.2f s; %s", startGap, startGap, covered));
        }
        if (endGap > 0) {
            out.add(String.format(Locale.ROOT, END_UNBRACKETED + " by a successful scrape: "
                    + "the last came %.2f s before it (the scrapes after it failed), so the server's token and "
                    + "request counts miss what it did in the window's last %.2f s; %s", endGap, endGap, covered));
        }
    }

    private KnownFamily find(MetricRole role) {
        return KnownFamilies.find(engine, role, timeline::hasSample);
    }

    /**
     * Highest per-scrape aggregate (sum over series, or max) over the scrapes strictly inside the window; null when
     * none fell inside. The scrapes at or beyond the edges are left out: a level's edge scrapes are taken before its
     * first send and after its last response, when the server is idle, and read 0 running however loaded it was.
     */
    private Double gaugePeak(String figure, MetricRole role, boolean sum) {
        KnownFamily f = find(role);
        if (f == null) return null;
        List<Series> series = models.select(timeline.seriesNamed(f.valueSampleNames().get(0)), figure);
        List<Scrape> scrapes = inside;
        Double peak = null;
        boolean notANumber = false;
        for (Scrape s : scrapes) {
            Double v = aggregate(s, series, sum);
            if (v != null && (peak == null || v > peak)) peak = v;
            for (Series x : series) notANumber |= s.has(x.id()) && Double.isNaN(s.valueOr(x.id(), 0));
        }
        // a family served as NaN in every sample is named too: its figure is null for that, not for lack of it
        if (peak != null || notANumber) families.put(figure, f.name());
        return peak;
    }

    private static Double aggregate(Scrape s, List<Series> series, boolean sum) {
        Double total = null;
        for (Series x : series) {
            double v = s.valueOr(x.id(), Double.NaN);
            if (Double.isNaN(v)) continue;
            total = total == null ? v : sum ? total + v : Math.max(total, v);
        }
        return total;
    }

    private Double counterIncrease(String figure, MetricRole role) {
        KnownFamily f = find(role);
        if (f == null) return null;
        for (String name : f.valueSampleNames()) {
            List<Series> series = models.select(timeline.seriesNamed(name), figure);
            if (!series.isEmpty()) {
                Double v = increase(series, true);
                if (v != null) families.put(figure, f.name());
                return v;
            }
        }
        return null;
    }

    private Double prefixCacheHitRate() {
        KnownFamily hits = find(MetricRole.PREFIX_CACHE_HIT_TOKENS);
        KnownFamily queries = find(MetricRole.PREFIX_CACHE_QUERIED_TOKENS);
        if (hits != null && queries != null) {
            Double h = counterIncrease("prefix_cache_hit_tokens", MetricRole.PREFIX_CACHE_HIT_TOKENS);
            Double q = counterIncrease("prefix_cache_queried_tokens", MetricRole.PREFIX_CACHE_QUERIED_TOKENS);
            return h == null || q == null || q <= 0 ? null : h / q;
        }
        KnownFamily gauge = find(MetricRole.PREFIX_CACHE_HIT_RATE);
        if (gauge == null) return null;
        List<Series> series = models.select(timeline.seriesNamed(gauge.name()), "prefix_cache_hit_rate");
        double total = 0;
        int n = 0;
        for (Scrape s : inSpan.isEmpty() ? ok.subList(first, last + 1) : inSpan) {
            for (Series x : series) {
                double v = s.valueOr(x.id(), Double.NaN);
                if (!Double.isNaN(v)) {
                    total += v;
                    n++;
                }
            }
        }
        if (n == 0) return null;
        families.put("prefix_cache_hit_rate", gauge.name());
        return total / n;
    }

    private ServerLatency latency(String figure, MetricRole role) {
        KnownFamily f = find(role);
        if (f == null) return null;
        // each histogram child (labels but le) with its bounds; children of one layout merge bucket by bucket
        Map<Labels, TreeMap<Double, Series>> children = new LinkedHashMap<>();
        for (Series s : models.select(timeline.seriesNamed(f.name() + "_bucket"), figure)) {
            Double le = parseBound(s.labels().get("le"));
            if (le != null) children.computeIfAbsent(s.labels().without("le"), k -> new TreeMap<>()).put(le, s);
        }
        Map<List<Double>, TreeMap<Double, List<Series>>> layouts = new LinkedHashMap<>();
        for (TreeMap<Double, Series> child : children.values()) {
            TreeMap<Double, List<Series>> byBound = layouts.computeIfAbsent(List.copyOf(child.keySet()),
                    k -> new TreeMap<>());
            child.forEach((le, s) -> byBound.computeIfAbsent(le, k -> new ArrayList<>()).add(s));
        }
        Double count = increase(models.select(timeline.seriesNamed(f.name() + "_count"), figure), false);
        Double sum = increase(models.select(timeline.seriesNamed(f.name() + "_sum"), figure), false);
        double[] bounds = new double[0];
        double[] counts = new double[0];
        int observed = 0;
        double bucketTotal = 0;
        for (TreeMap<Double, List<Series>> byBound : layouts.values()) {
            double[] b = new double[byBound.size()];
            double[] c = new double[byBound.size()];
            int i = 0;
            for (Map.Entry<Double, List<Series>> e : byBound.entrySet()) {
                Double inc = increase(e.getValue(), false);
                b[i] = e.getKey();
                c[i] = inc == null ? 0 : inc;
                i++;
            }
            double n = i == 0 ? 0 : c[i - 1];
            bucketTotal += n;
            if (n > 0) observed++;
            if (counts.length == 0 || n > counts[counts.length - 1]) {
                bounds = b;
                counts = c;
            }
        }
        if (observed > 1) {
            layoutWarnings.add(String.format(Locale.ROOT, "%s: the server's %s series use %d different bucket "
                            + "layouts; buckets are not merged across layouts, so its quantiles come from the one "
                            + "with the most observations (%d of %d)", figure, f.name(), observed,
                    Math.round(counts[counts.length - 1]), Math.round(bucketTotal)));
        }
        if (count == null && counts.length > 0) count = bucketTotal;
        if (count == null) return null;
        families.put(figure, f.name());
        long observations = Math.round(count);
        if (observations == 0) return new ServerLatency(0, null, null, null, null);
        Double mean = sum == null ? null : sum / count;
        // the cap needs the mean of the very observations the buckets hold: not when one layout of several is read
        Double capMean = observed > 1 ? null : mean;
        List<String> upperBounds = new ArrayList<>();
        for (double q : new double[] {0.50, 0.90, 0.99}) {
            if (capped(q, bounds, counts, capMean)) upperBounds.add("p" + Math.round(q * 100));
        }
        return new ServerLatency(observations, mean, quantile(0.50, bounds, counts, capMean),
                quantile(0.90, bounds, counts, capMean), quantile(0.99, bounds, counts, capMean),
                bucket(0.50, bounds, counts), bucket(0.90, bounds, counts), bucket(0.99, bounds, counts),
                upperBounds);
    }

    /** Whether {@link #quantile} gives Markov's cap for {@code q}, below the interpolation: an upper bound. */
    private static boolean capped(double q, double[] bounds, double[] counts, Double mean) {
        Double interpolated = finite(HistogramQuantile.quantile(q, bounds, counts));
        return interpolated != null && mean != null && mean >= 0 && mean / (1 - q) < interpolated;
    }

    /** The bucket a quantile was interpolated in, for a reader to see how wide the estimate is. */
    private static ServerLatency.Bucket bucket(double q, double[] bounds, double[] counts) {
        double[] b = HistogramQuantile.bucket(q, bounds, counts);
        if (b == null) return null;
        return new ServerLatency.Bucket(b[0], Double.isInfinite(b[1]) ? null : b[1]);
    }

    /**
     * Prometheus' interpolated quantile, capped by Markov's bound for durations (never negative): at most a share
     * {@code 1 - q} of them can lie above {@code mean / (1 - q)}. Interpolating inside a wide first bucket otherwise
     * invents values: every queue time 0 in the 0-0.3 s bucket gave p50 0.15 s with a mean of 0.
     */
    private static Double quantile(double q, double[] bounds, double[] counts, Double mean) {
        Double interpolated = finite(HistogramQuantile.quantile(q, bounds, counts));
        if (interpolated == null || mean == null || !(mean >= 0)) return interpolated;
        return Math.min(interpolated, mean / (1 - q));
    }

    /**
     * Increase of the sum of {@code series} from the first to the last bracketing scrape, pair of scrapes by pair: a
     * value lower than the one before is a reset, and counts in full (as Prometheus' {@code increase()}); the first
     * reset is kept for the warnings. A series missing from the earlier scrape of a
     * pair started at 0 there (clients create labelled children on first use); one missing from the later scrape
     * adds nothing. Null when no scrape in the span served any of them.
     *
     * @param inWindowOnly true for counters: each pair's increase is weighted by the share of the pair's interval
     *                     that lies inside the span (the counter interpolated linearly to the window's edges), so
     *                     warmup before the window and idle time after it are left out (a whole level's span
     *                     covers every scrape: nothing is left out); false for histograms, whose
     *                     observations are whole requests and are taken over the whole span
     */
    private Double increase(List<Series> series, boolean inWindowOnly) {
        if (series.isEmpty()) return null;
        boolean seen = false;
        double total = 0;
        for (Series x : series) {
            double previous = Double.NaN;
            long previousNanos = ok.get(first).offsetNanos();
            for (int i = first; i <= last; i++) {
                double v = ok.get(i).valueOr(x.id(), Double.NaN);
                long t = ok.get(i).offsetNanos();
                if (Double.isNaN(v)) continue;
                seen = true;
                if (i > first && t > previousNanos) {
                    double base = Double.isNaN(previous) ? 0 : previous;
                    if (v < base && (reset == null || previousNanos < reset[0])) reset = new long[]{previousNanos, t};
                    double increase = v >= base ? v - base : v;
                    total += inWindowOnly ? increase * overlap(previousNanos, t) / (double) (t - previousNanos)
                            : increase;
                }
                previous = v;
                previousNanos = t;
            }
        }
        return seen ? total : null;
    }

    /** How much of {@code [fromNanos, toNanos]} lies inside the span (the window, or the whole level). */
    private long overlap(long fromNanos, long toNanos) {
        return Math.max(0, Math.min(toNanos, spanEndNanos) - Math.max(fromNanos, spanStartNanos));
    }

    private static Double parseBound(String le) {
        return le == null ? null : ExpositionParser.parseFloatOrNull(le);
    }

    private static Double finite(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? null : v;
    }

    private static Long round(Double v) {
        return v == null ? null : Math.round(v);
    }
}
