package io.llmperf4j.servermetrics.summary;

import io.llmperf4j.servermetrics.engines.KnownFamilies;
import io.llmperf4j.servermetrics.engines.KnownFamily;
import io.llmperf4j.servermetrics.engines.MetricRole;
import io.llmperf4j.servermetrics.engines.ServerEngine;
import io.llmperf4j.servermetrics.timeline.Scrape;
import io.llmperf4j.servermetrics.timeline.Series;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The known families of a timeline per scrape, on the client's time axis, for the HTML page: one point per
 * successful scrape, none for a gap (draw a gap as a break in the line). Empty lists where the server does not
 * expose the family. The series are selected by model as the summary's are ({@code ModelSeries}): where the server
 * labels them by model, the run's model's alone.
 *
 * @param engine                    the engine, or null
 * @param model                     the model whose series were drawn, where the server labels them by model; null
 *                                  when every series is added up (no model label, none for the model, or no model
 *                                  given)
 * @param requestsRunning           running requests, summed over series
 * @param requestsWaiting           waiting requests, summed over series
 * @param kvCacheUsage              KV-cache usage 0–1, the fullest series
 * @param generationTokensPerS      the server's generation counter as a rate between consecutive scrapes, placed at
 *                                  the later one (a reset gives the value after it, as Prometheus' {@code rate})
 * @param gaps                      the failed scrapes' times
 */
public record ServerTimeSeries(String engine, String model, List<TimedValue> requestsRunning,
                               List<TimedValue> requestsWaiting, List<TimedValue> kvCacheUsage,
                               List<TimedValue> generationTokensPerS, List<Double> gaps) {

    private static final double NANOS_PER_SECOND = 1e9;

    public ServerTimeSeries {
        requestsRunning = List.copyOf(requestsRunning);
        requestsWaiting = List.copyOf(requestsWaiting);
        kvCacheUsage = List.copyOf(kvCacheUsage);
        generationTokensPerS = List.copyOf(generationTokensPerS);
        gaps = List.copyOf(gaps);
    }

    /** Every series added up, whatever model they are labelled with. */
    public static ServerTimeSeries of(ServerMetricsTimeline timeline) {
        return of(timeline, null);
    }

    /**
     * {@code model}'s series where the server labels its series by model, otherwise all of them: the selection the
     * summary made (pass its {@code server.model}, so the charts and the figures beside them read the same series).
     */
    public static ServerTimeSeries of(ServerMetricsTimeline timeline, String model) {
        ServerEngine engine = ServerEngine.detect(timeline.series().stream().map(Series::name)
                .collect(Collectors.toSet()));
        List<Double> gaps = timeline.failedScrapes().stream().map(s -> s.offsetNanos() / NANOS_PER_SECOND).toList();
        if (engine == null) return new ServerTimeSeries(null, null, List.of(), List.of(), List.of(), List.of(), gaps);
        ModelSeries models = new ModelSeries(model);
        List<TimedValue> running = gauge(timeline, engine, MetricRole.REQUESTS_RUNNING, true, models);
        List<TimedValue> waiting = gauge(timeline, engine, MetricRole.REQUESTS_WAITING, true, models);
        List<TimedValue> kv = gauge(timeline, engine, MetricRole.KV_CACHE_USAGE, false, models);
        List<TimedValue> generation = rate(timeline, engine, MetricRole.GENERATION_TOKENS, models);
        return new ServerTimeSeries(engine.id, models.selectedModel(), running, waiting, kv, generation, gaps);
    }

    private static List<TimedValue> gauge(ServerMetricsTimeline t, ServerEngine engine, MetricRole role, boolean sum,
                                          ModelSeries models) {
        KnownFamily f = KnownFamilies.find(engine, role, t::hasSample);
        if (f == null) return List.of();
        List<Series> series = models.select(t.seriesNamed(f.valueSampleNames().get(0)), figure(role));
        List<TimedValue> out = new ArrayList<>();
        for (Scrape s : t.successfulScrapes()) {
            Double v = null;
            for (Series x : series) {
                double value = s.valueOr(x.id(), Double.NaN);
                if (Double.isNaN(value)) continue;
                v = v == null ? value : sum ? v + value : Math.max(v, value);
            }
            if (v != null) out.add(new TimedValue(s.offsetNanos() / NANOS_PER_SECOND, v));
        }
        return out;
    }

    private static List<TimedValue> rate(ServerMetricsTimeline t, ServerEngine engine, MetricRole role,
                                         ModelSeries models) {
        KnownFamily f = KnownFamilies.find(engine, role, t::hasSample);
        if (f == null) return List.of();
        List<Series> series = models.select(f.valueSampleNames().stream().map(t::seriesNamed)
                .filter(l -> !l.isEmpty()).findFirst().orElse(List.of()), figure(role));
        List<TimedValue> out = new ArrayList<>();
        Scrape previous = null;
        for (Scrape s : t.successfulScrapes()) {
            if (previous != null && s.offsetNanos() > previous.offsetNanos()) {
                double increase = 0;
                boolean any = false;
                for (Series x : series) {
                    double before = previous.valueOr(x.id(), Double.NaN);
                    double now = s.valueOr(x.id(), Double.NaN);
                    if (Double.isNaN(now)) continue;
                    any = true;
                    double base = Double.isNaN(before) ? 0 : before;
                    increase += now >= base ? now - base : now;
                }
                if (any) {
                    double seconds = (s.offsetNanos() - previous.offsetNanos()) / NANOS_PER_SECOND;
                    out.add(new TimedValue(s.offsetNanos() / NANOS_PER_SECOND, increase / seconds));
                }
            }
            previous = s;
        }
        return out;
    }

    /** The summary's name of the figure a role gives: requests_running, generation_tokens. */
    private static String figure(MetricRole role) {
        return role.name().toLowerCase(Locale.ROOT);
    }
}
