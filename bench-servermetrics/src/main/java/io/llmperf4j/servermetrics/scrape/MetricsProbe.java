package io.llmperf4j.servermetrics.scrape;

import io.llmperf4j.servermetrics.engines.ServerEngine;
import io.llmperf4j.servermetrics.exposition.Exposition;
import io.llmperf4j.servermetrics.exposition.ExpositionFormat;
import io.llmperf4j.servermetrics.exposition.Sample;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;

/** One scrape, for {@code doctor} and for deciding whether to scrape at all: does this URL serve Prometheus text? */
public final class MetricsProbe {

    private MetricsProbe() {
    }

    /**
     * Fetches the config's metrics URL once, within its timeout, and says whether it serves Prometheus text.
     * Never throws for a network or server problem: that is a result with {@code ok == false}.
     */
    public static ProbeResult probe(ServerMetricsConfig config) {
        String url = Origins.display(config.metricsUrl());
        try (MetricsFetcher fetcher = new MetricsFetcher(config)) {
            Exposition e = fetcher.fetch();
            Set<String> names = e.samples().stream().map(Sample::name).collect(Collectors.toSet());
            ServerEngine engine = ServerEngine.detect(names);
            String detail = "serves " + (e.format() == ExpositionFormat.OPENMETRICS_1_0
                    ? "OpenMetrics" : "Prometheus text") + ": " + e.families().size() + " families, "
                    + e.sampleCount() + " samples" + (engine == null ? ", no vLLM/SGLang/TGI names"
                    : ", " + engine.id + " names");
            return new ProbeResult(url, true, 200, e.format(), e.families().size(), e.sampleCount(), engine,
                    config.sendsCredentials(), detail, Duration.ofNanos(fetcher.lastWaitNanos()));
        } catch (ScrapeFailedException e) {
            return new ProbeResult(url, false, e.httpStatus(), null, 0, 0, null, config.sendsCredentials(),
                    e.getMessage(), null);
        }
    }
}
