package io.llmperf4j.cli;

import io.llmperf4j.run.ServerMetricsOptions;
import picocli.CommandLine.Option;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;

/** The server's Prometheus metrics, scraped during the run (issue 19). A picocli mixin. */
final class ServerMetricsFlags {
    /** What picocli puts in {@link #url} for a bare --server-metrics: the endpoint's origin + /metrics. */
    static final String ENDPOINT_ORIGIN = "<endpoint origin>/metrics";

    @Option(names = "--server-metrics", paramLabel = "URL", arity = "0..1", fallbackValue = ENDPOINT_ORIGIN,
            description = "Scrape the server's Prometheus metrics during each level (default: on, from "
                    + "the endpoint's origin + /metrics, used only when it answers Prometheus text); writes "
                    + "<base>_server_metrics.csv and a server section in the summary. The API key and --header "
                    + "values are sent only when URL has the endpoint's origin; --server-metrics-header for "
                    + "another.")
    String url;

    @Option(names = "--no-server-metrics", negatable = false,
            description = "Do not look for or scrape the server's metrics.")
    boolean off;

    @Option(names = "--server-metrics-interval", paramLabel = "SECONDS", defaultValue = "1",
            description = "Seconds between two scrapes of the server's metrics.")
    double intervalSeconds;

    ServerMetricsOptions resolve() {
        if (!(intervalSeconds > 0) || Double.isInfinite(intervalSeconds)) {
            throw new UsageException("--server-metrics-interval must be a positive number of seconds (got "
                    + intervalSeconds + ")");
        }
        if (off && url != null) {
            throw new UsageException("--server-metrics and --no-server-metrics contradict each other: give one");
        }
        Duration interval = Duration.ofNanos(Math.max(1_000_000L, Math.round(intervalSeconds * 1e9)));
        if (off) return new ServerMetricsOptions(false, null, interval);
        return new ServerMetricsOptions(true, url == null || url.equals(ENDPOINT_ORIGIN) ? null : parse(url), interval);
    }

    private static URI parse(String text) {
        try {
            URI uri = new URI(text);
            if (uri.getScheme() == null || !uri.getScheme().matches("(?i)https?") || uri.getHost() == null) {
                throw new UsageException("--server-metrics must be an http(s) URL such as http://host:8000/metrics "
                        + "(got '" + text + "')");
            }
            return uri;
        } catch (URISyntaxException e) {
            throw new UsageException("--server-metrics: not a URL: " + e.getMessage());
        }
    }
}
