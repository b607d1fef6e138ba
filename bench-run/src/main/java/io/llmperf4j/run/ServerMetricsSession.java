package io.llmperf4j.run;

import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.servermetrics.scrape.MetricsProbe;
import io.llmperf4j.servermetrics.scrape.Origins;
import io.llmperf4j.servermetrics.scrape.ProbeResult;
import io.llmperf4j.servermetrics.scrape.ServerMetricsConfig;
import io.llmperf4j.servermetrics.scrape.ServerMetricsScraper;
import io.llmperf4j.servermetrics.summary.ServerSideSummarizer;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;
import io.llmperf4j.servermetrics.timeline.Scrape;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * The server's side of a run (issue 19): one probe before the first level decides whether the server serves
 * Prometheus text; then, per level, a scraper from the level's start to its end, its timeline (written as the
 * level's {@code <base>_server_metrics.csv} by {@code ResultFiles.SERVER_METRICS}) and its {@link ServerSideSummary}. Never fails a run: a server without metrics is
 * one warning line, a failed scrape a gap and a warning.
 */
final class ServerMetricsSession {

    /**
     * A level's server side: its summary over the measured window, every scrape (for its CSV), the URL scraped (for
     * its warnings; null when not known), and whether its counters were interpolated to the window's edges (a
     * cluster's warmups: about one interval's share off, so not set against the client's counts).
     */
    record LevelServerMetrics(ServerSideSummary summary, ServerMetricsTimeline timeline, String metricsUrl,
                              boolean interpolated) {
        LevelServerMetrics(ServerSideSummary summary, ServerMetricsTimeline timeline) {
            this(summary, timeline, null, false);
        }

        LevelServerMetrics withSummary(ServerSideSummary s) {
            return new LevelServerMetrics(s, timeline, metricsUrl, interpolated);
        }

        /**
         * Why the scrapes at the counters' edges failed, for the warning that says what the gap cost: "the scrapes
         * after it failed: 2× HTTP 404"; null when none did.
         */
        String edgeFailure() {
            List<Scrape> end = failedAtEnd();
            List<Scrape> start = failedAtStart();
            List<String> words = new ArrayList<>();
            if (!start.isEmpty()) words.add("the scrape at its start failed: " + reasons(start));
            if (!end.isEmpty()) words.add((end.size() == 1 ? "the scrape after it failed: " : "the scrapes after it "
                    + "failed: ") + reasons(end));
            return words.isEmpty() ? null : String.join("; ", words);
        }

        /** The failed scrapes {@link #edgeFailure()} names, once the summary's warnings say what the gap cost. */
        boolean saidBySummary(Scrape failed) {
            boolean said = summary.warnings().stream().anyMatch(w -> w.startsWith(ServerCountsBesideClient.COVERAGE)
                    || ServerSideSummarizer.isEdgeWarning(w));
            return said && (failedAtEnd().contains(failed) || failedAtStart().contains(failed));
        }

        private List<Scrape> failedAtEnd() {
            if (summary.countedToS() == null || summary.windowS() == null || summary.windowStartS() == null
                    || summary.windowS() - summary.countedToS() <= SLACK_S) {
                return List.of();
            }
            double lastRead = summary.windowStartS() + summary.countedToS();
            return timeline.failedScrapes().stream().filter(f -> f.offsetNanos() / 1e9 >= lastRead).toList();
        }

        private List<Scrape> failedAtStart() {
            if (summary.countedFromS() == null || summary.windowStartS() == null
                    || summary.countedFromS() <= SLACK_S) {
                return List.of();
            }
            double opened = summary.windowStartS();
            double firstRead = opened + summary.countedFromS();
            return timeline.failedScrapes().stream().filter(f -> f.offsetNanos() / 1e9 >= opened - SLACK_S
                    && f.offsetNanos() / 1e9 < firstRead).toList();
        }

        /** "2× HTTP 404, timed out after 5 s": each reason once, with how many failed for it. */
        private static String reasons(List<Scrape> failed) {
            Map<String, Integer> byReason = new LinkedHashMap<>();
            for (Scrape f : failed) byReason.merge(f.failure(), 1, Integer::sum);
            List<String> out = new ArrayList<>();
            byReason.forEach((reason, n) -> out.add((n == 1 ? "" : n + "× ") + reason));
            return String.join(", ", out);
        }
    }

    /** How far past an edge a scrape may lie and still read it, in seconds (the summarizer's slack). */
    private static final double SLACK_S = ServerSideSummarizer.EDGE_SLACK_NANOS / 1e9;

    /**
     * The check before the run is bounded tighter than a scrape: the server is idle then, and a /metrics that does
     * not answer within this would hold back the run's first request as long.
     */
    static final Duration CHECK_TIMEOUT = Duration.ofSeconds(2);
    /** A check that answered slower than this is said on the console: each level waits as long for its baseline. */
    static final Duration SLOW_CHECK = Duration.ofMillis(500);

    private final ServerMetricsConfig config;
    private final PrintStream err;
    /** The run's model, whose series the summary reads where the server labels them by model; null for several. */
    private final String runModel;
    private ServerMetricsScraper scraper;
    private long originNanos;
    private long originEpochMillis;
    /** The level's warmup, told by its records when its last request ended; null without warmup. */
    private volatile WarmupEnd warmupEnd;
    /** When the level's last warmup request ended (a scrape was asked for then), from the level's start; or null. */
    private volatile Long warmupEndOffsetNanos;
    /** A scrape was asked for where the level's measured window opens ({@link #measureStarted}). */
    private volatile boolean openingScraped;
    /**
     * The level's sending closed ({@link #sendingClosed}): its measured window is over, and a scrape failing from
     * then until the final one is said by the level's end-of-run warnings, not live.
     */
    private volatile boolean windowOver;

    private ServerMetricsSession(ServerMetricsConfig config, PrintStream err, String model) {
        this.config = config;
        this.err = err;
        this.runModel = model;
    }

    /**
     * The one model of {@code --model}, or null when it names several (a comparison: the session does not know
     * which level runs which model: each passes its own to {@link #levelEnded}).
     */
    static String singleModel(String models) {
        if (models == null || models.isBlank() || models.contains(",")) return null;
        return models.strip();
    }

    /**
     * The session for this run, or null when it is turned off or the metrics URL does not serve Prometheus text
     * (then one warning line says so: for a 401 or 403, that the scrape needs credentials and which it sent).
     */
    static ServerMetricsSession open(ServerMetricsOptions options, URI endpoint, String apiKey, CommonSettings common,
                                     PrintStream err) {
        return open(options, endpoint, apiKey, common, err, CHECK_TIMEOUT);
    }

    /**
     * As above, the check bounded by {@code checkTimeout} (at most the scrape's own timeout) instead of
     * {@link #CHECK_TIMEOUT}: a test of a slow check gives a bound that a loaded machine's transfer and parse cannot
     * reach, where the product's 2 s would make its outcome the machine's.
     */
    static ServerMetricsSession open(ServerMetricsOptions options, URI endpoint, String apiKey, CommonSettings common,
                                     PrintStream err, Duration checkTimeout) {
        if (!options.enabled()) return null;
        ServerMetricsConfig config;
        try {
            config = scrapeConfig(endpoint, common.registered().adapter(true), apiKey, common.access())
                    .withInterval(options.interval());
        } catch (IOException e) {
            err.println("llmperf4j: warning: no server metrics: could not read " + common.caCert() + ": "
                    + e.getMessage());
            return null;
        }
        if (options.url() != null) config = config.withMetricsUrl(options.url());
        ProbeResult probe = MetricsProbe.probe(config.timeout().compareTo(checkTimeout) > 0
                ? config.withTimeout(checkTimeout) : config);
        if (!probe.ok()) {
            err.println("llmperf4j: warning: no server metrics from " + probe.url() + " (" + probe.detail()
                    + "); the run goes on without the server's side (--no-server-metrics silences this)");
            return null;
        }
        // the time the check waited for the server, within its bound: this process's own delays (parsing the
        // answer, a busy CPU) are no figure of the server's, and could read above the bound it gives up at
        if (probe.waited().compareTo(SLOW_CHECK) > 0) {
            err.printf(Locale.ROOT, "llmperf4j: warning: server metrics from %s answered the check in %.1f s: each "
                    + "level waits as long for its baseline scrape before its first request (--no-server-metrics "
                    + "turns them off)%n", probe.url(), probe.waited().toNanos() / 1e9);
        }
        return new ServerMetricsSession(config, err, singleModel(common.model()));
    }

    /**
     * How a run (and doctor) scrapes {@code endpoint}'s origin + {@code /metrics}: with the credentials its requests
     * carry (the key in {@code api}'s header, the --header values), sent only to the endpoint's origin; the scrape's
     * own headers (--server-metrics-header) to the metrics URL whatever its origin; the run's TLS trust.
     *
     * @throws IOException when the --ca-cert file cannot be read
     */
    static ServerMetricsConfig scrapeConfig(URI endpoint, LlmApi api, String apiKey, EndpointAccess access)
            throws IOException {
        Map<String, String> credentials = new LinkedHashMap<>(api.headers(Secret.of(apiKey)));
        credentials.putAll(access.headers());
        ServerMetricsConfig config = ServerMetricsConfig.forEndpoint(endpoint, null).withEndpointHeaders(credentials)
                .withMetricsHeaders(access.scrapeHeaders());
        SSLContext tls = access.sslContext();
        return tls == null ? config : config.withSslContext(tls);
    }

    /**
     * Starts scraping at a level's start and waits (at most about the scrape timeout) for the first scrape, so the
     * counters' baseline is read before the level's first request is sent. With {@code warmup}, the records passed to
     * {@link #recordEnded} tell when its last request ended, and a scrape is taken then.
     */
    void levelStarted(long levelStartNanos, Warmup warmup) {
        stopQuietly();
        warmupEnd = WarmupEnd.of(warmup, levelStartNanos);
        warmupEndOffsetNanos = null;
        openingScraped = false;
        windowOver = false;
        originNanos = levelStartNanos;
        originEpochMillis = System.currentTimeMillis() - (System.nanoTime() - levelStartNanos) / 1_000_000;
        scraper = ServerMetricsScraper.start(config, levelStartNanos, w -> {
            if (!windowOver) err.println("llmperf4j: warning: " + w);
        });
        long deadline = System.nanoTime() + config.timeout().toNanos() + 1_000_000_000L;
        while (scraper.snapshot().scrapes().isEmpty() && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(1_000_000L);
        }
    }

    /**
     * A record of the level came in (the runner's thread): after the warmup's last one (each that may be, for a
     * warmup by duration), a scrape right away, the measured requests' baseline, as the scrape before the first send
     * is for a level without warmup.
     */
    void recordEnded(ScheduledRecord record) {
        ServerMetricsScraper s = scraper;
        long now = System.nanoTime();
        if (s == null || warmupEnd == null || !warmupEnd.mayEndWith(record, now)) return;
        warmupEndOffsetNanos = now - originNanos;
        s.scrapeNow();
    }

    /**
     * The level's measured window opens at {@code nanoTime} (any thread; an open loop tells it ahead): with a warmup,
     * whose requests still run then, a scrape there, the counters' baseline for the window (the warmup's tail after
     * it counted as the client's delivered tokens count it).
     */
    void measureStarted(long nanoTime) {
        ServerMetricsScraper s = scraper;
        if (s == null || warmupEnd == null) return;
        openingScraped = true;
        s.scrapeAt(nanoTime);
    }

    /**
     * The level's sending closed (any thread): its measured window ends there at the latest. From then on a scrape
     * that fails (or answers again) is not said live: the level's end-of-run warnings ({@link #sayWarnings}) say
     * what failed and what it cost the counts.
     */
    void sendingClosed() {
        windowOver = true;
    }

    /**
     * Ends a level: a final scrape and the summary over the measured window; the level's files (its CSV among them,
     * {@code ResultFiles.SERVER_METRICS}) are written from what this returns.
     * The measured window is placed on the scrapes' clock by its wall-clock start (millisecond precision).
     *
     * <p>Without warmup every token the server generated during the level was ours: the counters are then taken
     * from the baseline scrape (before the first send) to the final one (after the last record), whole, and
     * divided by the client's measured duration, so {@code generation_tokens} and {@code generation_tokens_per_s}
     * compare one to one with the client's output tokens and tok/s. With warmup, the same from the scrape taken
     * when the warmup's last request ended ({@link #recordEnded}) when that came before the window opened (exact),
     * else from the scrape taken where the window opened ({@link #measureStarted}), the warmup's requests still
     * running: its counters then hold their tail, as the client's delivered tokens do, and start a moment into the
     * window ({@code counted_from_s}; the run sets beside them what the client saw then). Without either (a
     * cluster's workers' warmups) the summarizer interpolates the counters to the window's edges (about one scrape
     * interval's share off).
     *
     * @param model          the model this level sent, whose series the summary reads (a comparison's levels each
     *                       run one of --model's); null: the run's one --model, or every series for several
     * @param warmupExcluded the level ran warmup (its settings say so). Not "the window starts after the level's
     *                       start": a cluster's window starts at its first worker's start, after the shared start
     *                       instant, with or without warmup, and interpolating its edges between scrapes under-counted
     *                       the tokens the workers' requests generated
     */
    LevelServerMetrics levelEnded(String model, long windowStartEpochMillis, long durationNanos,
                                  boolean warmupExcluded) {
        LevelServerMetrics level = levelEndedQuietly(model, windowStartEpochMillis, durationNanos, warmupExcluded);
        if (level != null) sayWarnings(level);
        return level;
    }

    /**
     * As {@link #levelEnded}, its warnings not said: the run sets the client's figures beside the counts first
     * ({@link ServerCountsBesideClient}), whose words on a gap replace the summarizer's, then says them once
     * ({@link #sayWarnings}).
     */
    LevelServerMetrics levelEndedQuietly(String model, long windowStartEpochMillis, long durationNanos,
                                         boolean warmupExcluded) {
        if (scraper == null) return null;
        if (model == null) model = runModel;
        ServerMetricsScraper ended = scraper;
        scraper = null;
        ServerMetricsTimeline timeline = ended.stop();
        long startOffsetNanos = Math.max(0, (windowStartEpochMillis - originEpochMillis) * 1_000_000L);
        long endOffsetNanos = startOffsetNanos + durationNanos;
        ServerSideSummary summary = null;
        boolean interpolated = false;
        if (warmupExcluded && (warmupEndOffsetNanos != null || openingScraped)) {
            summary = ServerSideSummarizer.summarizeAfterWarmup(timeline, warmupEndOffsetNanos, startOffsetNanos,
                    endOffsetNanos, model);
        } else if (!warmupExcluded && timeline.successfulScrapes().size() >= 2) {
            summary = ServerSideSummarizer.summarizeWholeLevel(timeline, startOffsetNanos, endOffsetNanos, model);
        }
        if (summary == null) {
            summary = ServerSideSummarizer.summarize(timeline, startOffsetNanos, endOffsetNanos, model);
            interpolated = true;
        }
        summary = summary.withSampleInterval(config.interval().toNanos() / 1e9);
        return new LevelServerMetrics(summary, timeline, ended.metricsUrl(), interpolated);
    }

    /**
     * Says a level's warnings, once each: the summary's, then the failed scrapes the summary's words on a gap do not
     * already name (a failed scrape at the window's end is one warning, with what it cost, not three).
     */
    void sayWarnings(LevelServerMetrics level) {
        for (String w : level.summary().warnings()) {
            err.println("llmperf4j: warning: server metrics: " + w);
        }
        String source = "server metrics from " + (level.metricsUrl() == null ? Origins.display(config.metricsUrl())
                : level.metricsUrl());
        for (String w : level.timeline().warnings(source, level::saidBySummary)) {
            err.println("llmperf4j: warning: " + w);
        }
    }

    /** A level that died: stop its scraper; nothing is written. */
    void stopQuietly() {
        if (scraper != null) {
            ServerMetricsScraper s = scraper;
            scraper = null;
            s.stop();
        }
    }
}
