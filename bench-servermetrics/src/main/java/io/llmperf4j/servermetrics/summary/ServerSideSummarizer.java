package io.llmperf4j.servermetrics.summary;

import io.llmperf4j.servermetrics.engines.KnownFamilies;
import io.llmperf4j.servermetrics.engines.KnownFamily;
import io.llmperf4j.servermetrics.engines.MetricRole;
import io.llmperf4j.servermetrics.engines.ServerEngine;
import io.llmperf4j.servermetrics.exposition.ExpositionParser;
import io.llmperf4j.servermetrics.timeline.Scrape;
import io.llmperf4j.servermetrics.timeline.Series;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Computes the {@link ServerSideSummary} of a timeline over the measured window.
 *
 * <p>Gauges (running, waiting, KV cache) are read from the scrapes inside the window (or, when the window is shorter
 * than the interval and holds none, from the two that bracket it). Counters and histograms are increases from the
 * last successful scrape at or before the window's start to the first at or after its end, summed over consecutive
 * scrapes so a reset counts what came after it; a counter keeps only the share of each interval inside the window
 * (tokens/s comparable with the client's over the same window), a histogram keeps whole requests. Series that differ only in labels (vLLM's {@code engine}, SGLang's
 * {@code tp_rank}, several models) are added up, like PromQL's {@code sum}; the KV cache takes the fullest.
 */
public final class ServerSideSummarizer {

    private static final double NANOS_PER_SECOND = 1e9;

    private final ServerMetricsTimeline timeline;
    private final List<Scrape> ok;
    private final List<Scrape> inWindow;
    private final List<Scrape> inside;
    private final int first;
    private final int last;
    private final ServerEngine engine;
    private final long windowStartNanos;
    private final long windowEndNanos;
    private final Map<String, String> families = new LinkedHashMap<>();

    private ServerSideSummarizer(ServerMetricsTimeline timeline, long startNanos, long endNanos) {
        this.timeline = timeline;
        this.windowStartNanos = startNanos;
        this.windowEndNanos = endNanos;
        this.ok = timeline.successfulScrapes();
        int b = -1;
        for (int i = 0; i < ok.size() && ok.get(i).offsetNanos() <= startNanos; i++) b = i;
        if (b < 0 && !ok.isEmpty()) b = 0;
        int e = -1;
        for (int i = 0; i < ok.size(); i++) {
            if (ok.get(i).offsetNanos() >= endNanos) {
                e = i;
                break;
            }
        }
        if (e < 0) e = ok.size() - 1;
        this.first = b;
        this.last = e;
        this.inWindow = ok.stream().filter(s -> s.offsetNanos() >= startNanos && s.offsetNanos() <= endNanos).toList();
        this.inside = ok.stream().filter(s -> s.offsetNanos() > startNanos && s.offsetNanos() < endNanos).toList();
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
        if (windowEndOffsetNanos < windowStartOffsetNanos) {
            throw new IllegalArgumentException("window end (" + windowEndOffsetNanos + " ns) is before its start ("
                    + windowStartOffsetNanos + " ns)");
        }
        return new ServerSideSummarizer(timeline, windowStartOffsetNanos, windowEndOffsetNanos)
                .summary(windowStartOffsetNanos, windowEndOffsetNanos);
    }

    private ServerSideSummary summary(long startNanos, long endNanos) {
        int scrapes = 0;
        int failed = 0;
        for (Scrape s : timeline.scrapes()) {
            if (s.offsetNanos() >= startNanos && s.offsetNanos() <= endNanos) {
                scrapes++;
                if (!s.ok()) failed++;
            }
        }
        boolean bracketed = engine != null && first >= 0 && last > first;
        Double spanS = bracketed ? (ok.get(last).offsetNanos() - ok.get(first).offsetNanos()) / NANOS_PER_SECOND : null;
        long coveredNanos = bracketed ? overlap(ok.get(first).offsetNanos(), ok.get(last).offsetNanos()) : 0;
        Double generation = bracketed ? counterIncrease("generation_tokens", MetricRole.GENERATION_TOKENS) : null;
        Double prompt = bracketed ? counterIncrease("prompt_tokens", MetricRole.PROMPT_TOKENS) : null;
        Double finished = bracketed ? counterIncrease("requests_finished", MetricRole.REQUESTS_FINISHED) : null;
        return new ServerSideSummary(
                engine == null ? null : engine.id,
                scrapes,
                failed,
                (endNanos - startNanos) / NANOS_PER_SECOND,
                spanS,
                engine == null ? null : gaugePeak("requests_running", MetricRole.REQUESTS_RUNNING, true),
                engine == null ? null : gaugePeak("requests_waiting", MetricRole.REQUESTS_WAITING, true),
                engine == null ? null : gaugePeak("kv_cache_usage", MetricRole.KV_CACHE_USAGE, false),
                bracketed ? prefixCacheHitRate() : null,
                round(prompt),
                round(generation),
                generation == null || coveredNanos <= 0 ? null : generation / (coveredNanos / NANOS_PER_SECOND),
                round(finished),
                bracketed ? latency("ttft", MetricRole.TIME_TO_FIRST_TOKEN) : null,
                bracketed ? latency("inter_token_latency", MetricRole.INTER_TOKEN_LATENCY) : null,
                bracketed ? latency("e2e_request_latency", MetricRole.E2E_REQUEST_LATENCY) : null,
                bracketed ? latency("queue_time", MetricRole.REQUEST_QUEUE_TIME) : null,
                families,
                ServerSideSummary.QUANTILE_METHOD,
                startNanos / NANOS_PER_SECOND,
                inside.size());
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
        List<Series> series = timeline.seriesNamed(f.valueSampleNames().get(0));
        List<Scrape> scrapes = inside;
        Double peak = null;
        for (Scrape s : scrapes) {
            Double v = aggregate(s, series, sum);
            if (v != null && (peak == null || v > peak)) peak = v;
        }
        if (peak != null) families.put(figure, f.name());
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
            List<Series> series = timeline.seriesNamed(name);
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
        List<Series> series = timeline.seriesNamed(gauge.name());
        double total = 0;
        int n = 0;
        for (Scrape s : inWindow.isEmpty() ? ok.subList(first, last + 1) : inWindow) {
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
        TreeMap<Double, List<Series>> byBound = new TreeMap<>();
        for (Series s : timeline.seriesNamed(f.name() + "_bucket")) {
            Double le = parseBound(s.labels().get("le"));
            if (le != null) byBound.computeIfAbsent(le, k -> new ArrayList<>()).add(s);
        }
        Double count = increase(timeline.seriesNamed(f.name() + "_count"), false);
        Double sum = increase(timeline.seriesNamed(f.name() + "_sum"), false);
        double[] bounds = new double[byBound.size()];
        double[] counts = new double[byBound.size()];
        int i = 0;
        for (Map.Entry<Double, List<Series>> e : byBound.entrySet()) {
            Double inc = increase(e.getValue(), false);
            bounds[i] = e.getKey();
            counts[i] = inc == null ? 0 : inc;
            i++;
        }
        if (count == null && i > 0) count = counts[i - 1];
        if (count == null) return null;
        families.put(figure, f.name());
        long observations = Math.round(count);
        if (observations == 0) return new ServerLatency(0, null, null, null, null);
        return new ServerLatency(observations, sum == null ? null : sum / count,
                finite(HistogramQuantile.quantile(0.50, bounds, counts)),
                finite(HistogramQuantile.quantile(0.90, bounds, counts)),
                finite(HistogramQuantile.quantile(0.99, bounds, counts)));
    }

    /**
     * Increase of the sum of {@code series} from the first to the last bracketing scrape, pair of scrapes by pair: a
     * value lower than the one before is a reset, and counts in full. A series missing from the earlier scrape of a
     * pair started at 0 there (clients create labelled children on first use); one missing from the later scrape
     * adds nothing. Null when no scrape in the span served any of them.
     *
     * @param inWindowOnly true for counters: each pair's increase is weighted by the share of the pair's interval
     *                     that lies inside the window (the counter interpolated linearly to the window's edges), so
     *                     warmup before the window and idle time after it are left out; false for histograms, whose
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

    /** How much of {@code [fromNanos, toNanos]} lies inside the window. */
    private long overlap(long fromNanos, long toNanos) {
        return Math.max(0, Math.min(toNanos, windowEndNanos) - Math.max(fromNanos, windowStartNanos));
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
