package io.llmperf4j.servermetrics.scrape;

import io.llmperf4j.servermetrics.exposition.Exposition;
import io.llmperf4j.servermetrics.exposition.ExpositionFormat;
import io.llmperf4j.servermetrics.exposition.ExpositionParser;
import io.llmperf4j.servermetrics.exposition.MalformedExpositionException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** One GET of the metrics URL, parsed; every way it can go wrong becomes a {@link ScrapeFailedException}. */
final class MetricsFetcher {

    /**
     * Only 0.0.4: Python's prometheus_client serves OpenMetrics whenever the Accept header names it at all (whatever
     * its q), and then adds {@code _created} samples for nothing. A server that serves OpenMetrics anyway is parsed as
     * such.
     */
    static final String ACCEPT = "text/plain;version=0.0.4;q=1.0,*/*;q=0.1";

    /** Enough for {@code /metrics} → {@code /metrics/} (some vLLM builds) and a proxy hop. */
    static final int MAX_REDIRECTS = 3;

    private final ServerMetricsConfig config;
    private final HttpClient client;

    MetricsFetcher(ServerMetricsConfig config, Executor executor) {
        this.config = config;
        HttpClient.Builder builder = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(config.timeout())
                // redirects are followed here, hop by hop, so the key never follows one to another origin
                .followRedirects(HttpClient.Redirect.NEVER);
        if (executor != null) builder.executor(executor);
        if (config.sslContext() != null) builder.sslContext(config.sslContext());
        this.client = builder.build();
    }

    /** The whole scrape, bounded by the config's timeout from connect to the last byte, redirects included. */
    Exposition fetch() throws ScrapeFailedException {
        long deadline = System.nanoTime() + config.timeout().toNanos();
        URI url = config.metricsUrl();
        HttpResponse<byte[]> response = send(url, deadline);
        for (int hops = 0; isRedirect(response.statusCode()); hops++) {
            String location = response.headers().firstValue("Location").orElse(null);
            if (location == null || hops == MAX_REDIRECTS) {
                throw new ScrapeFailedException("HTTP " + response.statusCode()
                        + (location == null ? " without a Location" : " after " + MAX_REDIRECTS + " redirects"),
                        response.statusCode(), null);
            }
            try {
                url = url.resolve(location);
            } catch (IllegalArgumentException e) {
                throw new ScrapeFailedException("HTTP " + response.statusCode() + " to an invalid Location",
                        response.statusCode(), null);
            }
            response = send(url, deadline);
        }
        String contentType = response.headers().firstValue("Content-Type").orElse(null);
        if (response.statusCode() != 200) {
            throw new ScrapeFailedException("HTTP " + response.statusCode(), response.statusCode(), contentType);
        }
        ExpositionFormat format = ExpositionFormat.fromContentType(contentType);
        String text = new String(response.body(), StandardCharsets.UTF_8);
        if (format == null) {
            if (contentType != null) {
                throw new ScrapeFailedException("not Prometheus text (Content-Type " + contentType + ")", 200,
                        contentType);
            }
            format = ExpositionFormat.detect(text);
        }
        try {
            return ExpositionParser.parse(text, format);
        } catch (MalformedExpositionException e) {
            throw new ScrapeFailedException("malformed metrics text, " + e.getMessage(), 200, contentType);
        }
    }

    /** One GET within what is left of the deadline; the key only when {@code url} has the endpoint's origin. */
    private HttpResponse<byte[]> send(URI url, long deadlineNanos) throws ScrapeFailedException {
        long leftNanos = deadlineNanos - System.nanoTime();
        if (leftNanos <= 0) throw new ScrapeFailedException("timed out after " + seconds(config.timeout()));
        HttpRequest.Builder request;
        try {
            request = HttpRequest.newBuilder(url)
                    .timeout(Duration.ofNanos(leftNanos))
                    .header("Accept", ACCEPT)
                    .GET();
        } catch (IllegalArgumentException e) {
            throw new ScrapeFailedException("invalid URL " + Origins.display(url));
        }
        if (config.sendsApiKeyTo(url)) request.header("Authorization", "Bearer " + config.apiKey());
        CompletableFuture<HttpResponse<byte[]>> pending =
                client.sendAsync(request.build(), info -> new LimitedBodySubscriber(config.maxBodyBytes()));
        try {
            return pending.get(leftNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            pending.cancel(true);
            throw new ScrapeFailedException("timed out after " + seconds(config.timeout()));
        } catch (InterruptedException e) {
            pending.cancel(true);
            Thread.currentThread().interrupt();
            throw new ScrapeFailedException("interrupted");
        } catch (ExecutionException e) {
            throw new ScrapeFailedException(reason(e.getCause()));
        }
    }

    private static boolean isRedirect(int status) {
        return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    }

    private String reason(Throwable cause) {
        if (cause instanceof HttpTimeoutException) return "timed out after " + seconds(config.timeout());
        if (cause instanceof ConnectException) return "connection refused or unreachable";
        if (cause instanceof javax.net.ssl.SSLHandshakeException) {
            return "TLS handshake failed (" + cause.getMessage() + "); pass the run's --ca-cert or --insecure";
        }
        if (cause instanceof UnresolvedAddressException
                || cause instanceof IOException && cause.getCause() instanceof UnresolvedAddressException) {
            return "host not found";
        }
        String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toMillis() / 1000 + " s" : d.toMillis() + " ms";
    }
}
