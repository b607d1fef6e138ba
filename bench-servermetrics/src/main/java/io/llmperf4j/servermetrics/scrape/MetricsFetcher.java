package io.llmperf4j.servermetrics.scrape;

import io.llmperf4j.servermetrics.exposition.Exposition;
import io.llmperf4j.servermetrics.exposition.ExpositionFormat;
import io.llmperf4j.servermetrics.exposition.ExpositionParser;
import io.llmperf4j.servermetrics.exposition.MalformedExpositionException;
import java.io.IOException;
import java.net.ConnectException;
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
     * 0.0.4 first: it is what every engine serves by default. Asking for OpenMetrics would make Python servers add
     * {@code _created} samples for nothing.
     */
    static final String ACCEPT = "text/plain;version=0.0.4;q=1.0,application/openmetrics-text;version=1.0.0;q=0.5,"
            + "*/*;q=0.1";

    private final ServerMetricsConfig config;
    private final HttpClient client;

    MetricsFetcher(ServerMetricsConfig config, Executor executor) {
        this.config = config;
        HttpClient.Builder builder = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(config.timeout())
                .followRedirects(HttpClient.Redirect.NEVER);
        if (executor != null) builder.executor(executor);
        this.client = builder.build();
    }

    /** The whole scrape, bounded by the config's timeout from connect to the last byte. */
    Exposition fetch() throws ScrapeFailedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(config.metricsUrl())
                .timeout(config.timeout())
                .header("Accept", ACCEPT)
                .GET();
        if (config.sendsApiKey()) request.header("Authorization", "Bearer " + config.apiKey());
        CompletableFuture<HttpResponse<byte[]>> pending =
                client.sendAsync(request.build(), info -> new LimitedBodySubscriber(config.maxBodyBytes()));
        HttpResponse<byte[]> response;
        try {
            response = pending.get(config.timeout().toNanos(), TimeUnit.NANOSECONDS);
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

    private String reason(Throwable cause) {
        if (cause instanceof HttpTimeoutException) return "timed out after " + seconds(config.timeout());
        if (cause instanceof ConnectException) return "connection refused or unreachable";
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
