package io.llmperf4j.servermetrics.scrape;

import io.llmperf4j.servermetrics.exposition.Exposition;
import io.llmperf4j.servermetrics.exposition.ExpositionFormat;
import io.llmperf4j.servermetrics.exposition.ExpositionParser;
import io.llmperf4j.servermetrics.exposition.MalformedExpositionException;
import io.llmperf4j.model.PrintableText;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * One GET of the metrics URL, parsed; every way it can go wrong becomes a {@link ScrapeFailedException}. Runs on
 * the caller's thread over a {@link ScrapeConnection} kept open from one scrape to the next; {@link #close()} may
 * be called from another thread to end a scrape in flight.
 */
final class MetricsFetcher implements AutoCloseable {

    /**
     * Only 0.0.4: Python's prometheus_client serves OpenMetrics whenever the Accept header names it at all (whatever
     * its q), and then adds {@code _created} samples for nothing. A server that serves OpenMetrics anyway is parsed as
     * such.
     */
    static final String ACCEPT = "text/plain;version=0.0.4;q=1.0,*/*;q=0.1";

    /** Enough for {@code /metrics} → {@code /metrics/} (some vLLM builds) and a proxy hop. */
    static final int MAX_REDIRECTS = 3;
    /** A Content-Type is the server's text, quoted on the console: escaped, and at most this long. */
    private static final int MAX_QUOTED_TYPE_CHARS = 80;

    private final ServerMetricsConfig config;
    /** The open connection to the origin asked last, kept for the next scrape; null when there is none. */
    private volatile ScrapeConnection connection;
    private volatile boolean closed;
    /** How long the last fetch waited for its answer ({@link #lastWaitNanos}); -1 before one answered. */
    private long lastWaitNanos = -1;

    MetricsFetcher(ServerMetricsConfig config) {
        this.config = config;
    }

    /** The whole scrape, bounded by the config's timeout from connect to the last byte, redirects included. */
    Exposition fetch() throws ScrapeFailedException {
        long start = System.nanoTime();
        long deadline = start + config.timeout().toNanos();
        URI url = config.metricsUrl();
        lastWaitNanos = -1;
        MetricsResponse response = send(url, deadline);
        for (int hops = 0; isRedirect(response.status()); hops++) {
            String location = response.location();
            if (location == null || hops == MAX_REDIRECTS) {
                throw new ScrapeFailedException("HTTP " + response.status()
                        + (location == null ? " without a Location" : " after " + MAX_REDIRECTS + " redirects"),
                        response.status(), null);
            }
            try {
                url = url.resolve(location);
            } catch (IllegalArgumentException e) {
                throw new ScrapeFailedException("HTTP " + response.status() + " to an invalid Location",
                        response.status(), null);
            }
            response = send(url, deadline);
        }
        // every read began before the deadline (the socket's timeout is what is left of it, and none begins after
        // it), so the answer came within the timeout: a later stamp is this thread's own delay, not the server's
        lastWaitNanos = Math.min(System.nanoTime() - start, config.timeout().toNanos());
        String contentType = response.contentType();
        if (response.status() == 401 || response.status() == 403) {
            throw new ScrapeFailedException("HTTP " + response.status() + ": " + needsCredentials(url),
                    response.status(), contentType);
        }
        if (response.status() != 200) {
            throw new ScrapeFailedException("HTTP " + response.status(), response.status(), contentType);
        }
        ExpositionFormat format = ExpositionFormat.fromContentType(contentType);
        String text = new String(response.body(), StandardCharsets.UTF_8);
        if (format == null) {
            if (contentType != null) {
                throw new ScrapeFailedException("not Prometheus text (Content-Type "
                        + PrintableText.quote(contentType, MAX_QUOTED_TYPE_CHARS) + ")", 200, contentType);
            }
            format = ExpositionFormat.detect(text);
        }
        try {
            return ExpositionParser.parse(text, format);
        } catch (MalformedExpositionException e) {
            throw new ScrapeFailedException("malformed metrics text, " + e.getMessage(), 200, contentType);
        }
    }

    /**
     * Why a 401 or 403 of {@code url}: it needs credentials, and which it got: none (the run's stay with the API's
     * origin), or some that it refused. Names headers' sources, never their values.
     */
    private String needsCredentials(URI url) {
        Map<String, String> sent = config.headersFor(url);
        boolean runs = Origins.sameOrigin(url, config.endpoint()) && !config.endpointHeaders().isEmpty();
        boolean own = Origins.sameOrigin(url, config.metricsUrl()) && !config.metricsHeaders().isEmpty();
        if (sent.isEmpty()) {
            return "the scrape needs credentials and sent none"
                    + (config.endpointHeaders().isEmpty() ? "" : ", since the run's key and --header go only to the "
                    + "API's origin (" + Origins.origin(config.endpoint()) + ")")
                    + ": give them with --server-metrics-header 'NAME: VALUE'";
        }
        String which = runs && own ? "the run's key and --header values, and --server-metrics-header"
                : own ? "--server-metrics-header" : "the run's key and --header values";
        return "the scrape needs credentials; the server refused those sent (" + which + ")"
                + (own ? "" : ": give /metrics' own with --server-metrics-header 'NAME: VALUE'");
    }

    /**
     * One GET within what is left of the deadline, with the headers {@code url}'s origin gets ({@link
     * ServerMetricsConfig#headersFor}: the run's credentials only at the endpoint's origin). A kept
     * connection that the server closed meanwhile (no answer at all) is replaced by a new one, once.
     */
    private MetricsResponse send(URI url, long deadlineNanos) throws ScrapeFailedException {
        if (deadlineNanos - System.nanoTime() <= 0) throw timedOut();
        byte[] request = ScrapeRequests.get(url, ACCEPT, config.headersFor(url));
        ScrapeConnection kept = connection;
        if (kept != null && !kept.serves(url)) {
            drop(kept);
            kept = null;
        }
        try {
            if (kept != null) {
                try {
                    return answered(kept, kept.exchange(request, deadlineNanos, config.maxBodyBytes()));
                } catch (ScrapeConnection.NoResponseException e) {
                    drop(kept); // closed by the server while idle: its keep-alive timeout, a restart
                    if (closed) throw e;
                }
            }
            ScrapeConnection fresh = ScrapeConnection.open(url, deadlineNanos, config.sslContext());
            connection = fresh;
            if (closed) fresh.close(); // close() came while connecting
            return answered(fresh, fresh.exchange(request, deadlineNanos, config.maxBodyBytes()));
        } catch (IOException e) {
            drop(connection);
            throw new ScrapeFailedException(closed ? "interrupted" : reason(e));
        } catch (ScrapeFailedException | RuntimeException e) {
            drop(connection);
            throw e;
        }
    }

    /**
     * Opens the connection the next scrape goes over, when none is kept: a scrape whose exchange is timed (a
     * window's edge) then does not include the connect (and an https handshake). Best effort: when it fails, the
     * scrape connects itself and fails, if it does, with its own reason. Call it on the thread that scrapes.
     */
    void open() {
        if (closed || connection != null) return;
        try {
            ScrapeConnection fresh = ScrapeConnection.open(config.metricsUrl(),
                    System.nanoTime() + config.timeout().toNanos(), config.sslContext());
            connection = fresh;
            if (closed) drop(fresh); // close() came while connecting
        } catch (IOException | ScrapeFailedException | RuntimeException e) {
            // the scrape tries again, and says why if it fails too
        }
    }

    /** Keeps {@code c} for the next request when the response allows it. */
    private MetricsResponse answered(ScrapeConnection c, MetricsResponse response) {
        if (!response.reusable() || closed) drop(c);
        return response;
    }

    private void drop(ScrapeConnection c) {
        if (c == null) return;
        c.close();
        if (connection == c) connection = null;
    }

    /**
     * How long the last {@link #fetch()} waited for the server, connect to the answer's last byte (before it was
     * parsed): at most the timeout; -1 when it got no answer.
     */
    long lastWaitNanos() {
        return lastWaitNanos;
    }

    /** Closes the kept connection, and the one of a scrape in flight (which then fails as interrupted). */
    @Override
    public void close() {
        closed = true;
        drop(connection);
    }

    private static boolean isRedirect(int status) {
        return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    }

    private String reason(IOException e) {
        if (e instanceof ScrapeConnection.NoResponseException && e.getCause() instanceof IOException cause) e = cause;
        if (e instanceof SocketTimeoutException) return timedOut().getMessage();
        if (e instanceof ConnectException || e instanceof NoRouteToHostException) {
            return "connection refused or unreachable";
        }
        if (e instanceof UnknownHostException) return "host not found";
        if (e instanceof ScrapeConnection.NoResponseException) return e.getMessage();
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
    }

    private ScrapeFailedException timedOut() {
        return new ScrapeFailedException("timed out after " + seconds(config.timeout()));
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toMillis() / 1000 + " s" : d.toMillis() + " ms";
    }
}
