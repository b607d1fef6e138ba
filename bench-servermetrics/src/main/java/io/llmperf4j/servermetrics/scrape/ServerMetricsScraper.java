package io.llmperf4j.servermetrics.scrape;

import io.llmperf4j.servermetrics.exposition.Exposition;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Scrapes a metrics URL every interval on its own daemon thread (the HTTP exchange runs on it too), over its own
 * connection, into a {@link ServerMetricsTimeline} stamped from the run's start. The scrapes a run asks for at its
 * measured window's edges ({@link #scrapeNow()}, {@link #scrapeAt(long)}) run on a second thread over a second
 * connection, so they never wait behind a periodic scrape in flight (QA: the opening scrape came 70-120 ms late);
 * each connection is opened before the scrape that uses it is timed, so a scrape's time is its exchange alone.
 *
 * <p>Lifecycle: {@link #start} scrapes at once (the baseline before any request) and then every interval, on a
 * fixed grid from the first scrape (a scrape that overruns skips the slots it missed);
 * {@link #scrapeNow()} adds one off the grid; {@link #stop()} cancels the schedule, scrapes one last time (so
 * lifetime counters are read after the run as well as before it) and returns the timeline. A successful scrape is
 * stamped at the midpoint of its exchange, a failed one at the instant it was sent (a scrape that hangs for the
 * whole timeout belongs to the window it was sent in). A failed scrape is a gap plus a warning: the listener hears about the first failure of a streak and the recovery, never each failure,
 * and nothing is thrown.
 */
public final class ServerMetricsScraper implements AutoCloseable {

    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final ServerMetricsConfig config;
    private final long runStartNanos;
    private final Consumer<String> warningListener;
    private final ScheduledExecutorService scheduler;
    private final MetricsFetcher fetcher;
    /** The edge scrapes' own thread and connection: an edge is read when asked, not after a periodic scrape. */
    private final ScheduledThreadPoolExecutor edges;
    private final MetricsFetcher edgeFetcher;
    private final ServerMetricsTimeline.Recorder recorder = ServerMetricsTimeline.recorder();
    private final long firstSlotNanos;
    private final long intervalNanos;
    private volatile ScheduledFuture<?> next;
    private volatile boolean stopping;
    /** A {@link #scrapeNow()} is queued and has not begun. */
    private final AtomicBoolean asked = new AtomicBoolean();
    private static final long NONE = Long.MIN_VALUE;
    /** Guards the edge scrapes' exchanges below and what is recorded against them; not this (see streakLock). */
    private final Object recordLock = new Object();
    /** When the edge scrape in flight was sent, or {@link #NONE}. */
    private long edgeInFlightSince = NONE;
    /** The last successful edge scrape's exchange, sent and done; null before one. */
    private long[] lastEdge;
    /** The last periodic scrape recorded: sent, done, its offset; null when none or taken out. */
    private long[] lastPeriodic;
    /** Guards {@link #failing}: not this, which {@link #stop()} holds while the final scrape runs. */
    private final Object streakLock = new Object();
    /** A streak of failures is heard of once, whichever thread scraped. */
    private boolean failing;
    private ServerMetricsTimeline stopped;

    private ServerMetricsScraper(ServerMetricsConfig config, long runStartNanos, Consumer<String> warningListener) {
        this.config = config;
        this.runStartNanos = runStartNanos;
        this.warningListener = warningListener;
        int n = INSTANCES.incrementAndGet();
        this.scheduler = Executors.newSingleThreadScheduledExecutor(daemon("server-metrics-scraper-" + n));
        this.fetcher = new MetricsFetcher(config);
        this.edges = new ScheduledThreadPoolExecutor(1, daemon("server-metrics-edge-" + n));
        // an edge asked for after stop() began is not taken: the final scrape reads the level's end
        this.edges.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.edgeFetcher = new MetricsFetcher(config);
        // the edges' connection is opened now, before the measured window opens, and kept: an edge scrape's time
        // (opening_scrape_s, closing_scrape_s) is then its exchange, not a connect too; any edge asked for runs after
        this.edges.execute(edgeFetcher::open);
        this.intervalNanos = config.interval().toNanos();
        this.firstSlotNanos = System.nanoTime();
        this.next = scheduler.schedule(this::tick, 0, TimeUnit.NANOSECONDS);
    }

    /**
     * Starts scraping now.
     *
     * @param config          what to scrape
     * @param runStartNanos   the run's origin on the {@link System#nanoTime()} clock; every scrape is stamped
     *                        relative to it (negative before it)
     * @param warningListener told, in plain words, when scrapes start failing and when they recover; may be null
     */
    public static ServerMetricsScraper start(ServerMetricsConfig config, long runStartNanos,
                                             Consumer<String> warningListener) {
        Objects.requireNonNull(config, "config");
        return new ServerMetricsScraper(config, runStartNanos, warningListener == null ? w -> { } : warningListener);
    }

    /** The URL scraped, fit to print. */
    public String metricsUrl() {
        return Origins.display(config.metricsUrl());
    }

    /** The scrapes so far. */
    public ServerMetricsTimeline snapshot() {
        return recorder.snapshot();
    }

    /**
     * Stops the schedule, takes a final scrape (waiting at most about twice the timeout for a scrape in flight and
     * the final one) and returns the whole timeline. Idempotent. The final scrape's failure is not told to the
     * listener (the run does not go on): it is in the timeline, whose reader says it once.
     */
    public synchronized ServerMetricsTimeline stop() {
        if (stopped != null) return stopped;
        stopping = true;
        next.cancel(false);
        edges.shutdown(); // an edge scrape in flight ends; one scheduled for later is dropped
        Future<?> last = scheduler.submit(() -> scrapeOnce(fetcher, true)); // an edge: kept whatever overlapped it
        long boundMillis = 2 * config.timeout().toMillis() + 1000;
        try {
            last.get(boundMillis, TimeUnit.MILLISECONDS);
            edges.awaitTermination(boundMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // the final scrape is best effort: its failure is already in the timeline, or it never ended
        }
        scheduler.shutdownNow();
        edges.shutdownNow();
        fetcher.close(); // also ends a scrape still stuck in flight, which is then a gap, "interrupted"
        edgeFetcher.close();
        stopped = recorder.snapshot();
        return stopped;
    }

    /**
     * Scrapes once more at once on the edge thread (after an edge scrape in flight, if any; never behind a periodic
     * one), off the interval grid and without moving it: a run asks for one at an edge of its measured window (the
     * warmup's end), for a baseline read there rather than up to an interval away. Asked again before that scrape
     * began, it is the same one (a burst of asks is one scrape, each after its ask). Returns at once; does nothing
     * once {@link #stop()} began.
     */
    public void scrapeNow() {
        if (stopping || !asked.compareAndSet(false, true)) return;
        try {
            edges.execute(() -> {
                asked.set(false);
                if (!stopping) scrapeOnce(edgeFetcher, true);
            });
        } catch (RejectedExecutionException e) {
            // stop() shut the scheduler down meanwhile
        }
    }

    /**
     * Scrapes once at {@code nanoTime} ({@link System#nanoTime()}; at once when it has passed) on the edge thread,
     * off the interval grid and without moving it: a run asks for one where its measured window opens while a warmup
     * still runs, for a baseline read there. A periodic scrape in flight then does not delay it: it has its own
     * thread and connection. Does nothing once {@link #stop()} began.
     */
    public void scrapeAt(long nanoTime) {
        if (stopping) return;
        try {
            edges.schedule(() -> {
                if (!stopping) scrapeOnce(edgeFetcher, true);
            }, Math.max(0, nanoTime - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // stop() shut the scheduler down meanwhile
        }
    }

    /** The timeline's warnings, naming the URL. */
    public List<String> warnings() {
        return snapshot().warnings("server metrics from " + metricsUrl());
    }

    @Override
    public void close() {
        stop();
    }

    /**
     * One scheduled scrape, then the next one at the next free slot of the interval grid: a scrape that overruns
     * (a stalled server) skips the slots it missed instead of firing them back to back, as a fixed-rate schedule
     * would, at a server that is already slow.
     */
    private void tick() {
        if (stopping) return;
        fetcher.open(); // a kept connection: nothing; else connected here, outside the scrape's timed exchange
        scrapeOnce(fetcher, false);
        if (stopping) return;
        long now = System.nanoTime();
        long slots = (now - firstSlotNanos) / intervalNanos + 1;
        try {
            next = scheduler.schedule(this::tick, firstSlotNanos + slots * intervalNanos - now, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // stop() shut the scheduler down meanwhile
        }
    }

    /**
     * One scrape over {@code over} (each thread has its own: the periodic one, the edges'), and never throws. The
     * final scrape's failure ({@link #stop()}) is left to the timeline's reader: the run does not go on.
     *
     * <p>A periodic scrape whose exchange overlapped a successful edge scrape's is not kept: the server answered the
     * two in an order their exchanges' midpoints do not tell (a proxy that serves one at a time read the later-sent
     * edge scrape first, and the pair read as a counter reset), and the edge scrape is the window's reading.
     */
    private void scrapeOnce(MetricsFetcher over, boolean edge) {
        long sentNanos = System.nanoTime();
        if (edge) {
            synchronized (recordLock) {
                edgeInFlightSince = sentNanos;
            }
        }
        try {
            Exposition exposition = over.fetch();
            long doneNanos = System.nanoTime();
            if (record(sentNanos, doneNanos, exposition, edge) && streak(false)) {
                warn("server metrics from " + metricsUrl() + " are answered again: the server timeline's gap ends here");
            }
        } catch (ScrapeFailedException | RuntimeException e) {
            long doneNanos = System.nanoTime();
            if (edge) {
                synchronized (recordLock) {
                    edgeInFlightSince = NONE;
                }
            }
            String reason = e instanceof ScrapeFailedException ? e.getMessage() : "unexpected " + e;
            // a failure belongs to the instant the scrape was sent: a scrape sent inside the window that hung for
            // the whole timeout is that window's gap, not one half a timeout later (QA: sent at 1.5 s, dated 4.0 s)
            recorder.recordFailure(sentNanos - runStartNanos, doneNanos - sentNanos, reason);
            if (streak(true) && !stopping) {
                warn("server metrics from " + metricsUrl() + " failed (" + reason
                        + "); the run goes on, the server timeline has a gap");
            }
        }
    }

    /**
     * Records a successful scrape, unless it is a periodic one whose exchange overlapped an edge scrape's (in
     * flight, or done); an edge scrape takes out the periodic one recorded last when their exchanges overlapped.
     * Returns whether it was recorded.
     */
    private boolean record(long sentNanos, long doneNanos, Exposition exposition, boolean edge) {
        long offset = midpoint(sentNanos, doneNanos) - runStartNanos;
        synchronized (recordLock) {
            if (edge) {
                edgeInFlightSince = NONE;
                lastEdge = new long[]{sentNanos, doneNanos};
                if (lastPeriodic != null && overlap(lastPeriodic, sentNanos, doneNanos)) {
                    recorder.removeScrape(lastPeriodic[2], lastPeriodic[1] - lastPeriodic[0]);
                    lastPeriodic = null;
                }
            } else if ((edgeInFlightSince != NONE && edgeInFlightSince - doneNanos < 0)
                    || (lastEdge != null && overlap(lastEdge, sentNanos, doneNanos))) {
                return false;
            }
            recorder.recordScrape(offset, doneNanos - sentNanos, exposition);
            if (!edge) lastPeriodic = new long[]{sentNanos, doneNanos, offset};
            return true;
        }
    }

    /** Whether the exchange {@code [a[0], a[1]]} and {@code [from, to]} overlap (nanoTime values). */
    private static boolean overlap(long[] a, long from, long to) {
        return a[0] - to < 0 && from - a[1] < 0;
    }

    /** Notes a scrape's outcome; true when it changes the streak (the first failure, or the first answer after). */
    private boolean streak(boolean failed) {
        synchronized (streakLock) {
            if (failing == failed) return false;
            failing = failed;
            return true;
        }
    }

    private void warn(String message) {
        try {
            warningListener.accept(message);
        } catch (RuntimeException ignored) {
            // a listener's fault must not stop the scraping
        }
    }

    private static long midpoint(long a, long b) {
        return a + (b - a) / 2;
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
