package io.llmperf4j.run;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.report.summary.Redaction;
import io.llmperf4j.servermetrics.scrape.TlsContexts;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A redirect (3xx) answering the API's request before the run. The run's client follows none (a POST's body and
 * key would go elsewhere unseen), so every request of the run would fail with it: the base URL is the wrong one. The
 * engine's failure keeps only the status, so the Location is read with one more request of the same body and
 * headers, by Java's client, which follows no redirect either.
 */
final class Redirects {
    private Redirects() {
    }

    /** Whether {@code failure} is an HTTP 3xx answer. */
    static boolean is(Failure failure) {
        return failure != null && failure.kind() == FailureKind.HTTP_STATUS && failure.code() >= 300
                && failure.code() < 400;
    }

    /**
     * The Location of the answer to the request {@code spec} of {@code api} to {@code config}'s endpoint, with the
     * run's headers, key and TLS trust; null when the answer has none or the request fails.
     */
    static String location(ClientConfig config, LlmApi api, RequestSpec spec) {
        try {
            HttpClient.Builder http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
                    .connectTimeout(config.connectTimeout());
            if (config.insecureTls()) {
                http.sslContext(TlsContexts.trustingAnything());
            } else if (config.trustedCertificatesPem() != null) {
                http.sslContext(TlsContexts.trusting(config.trustedCertificatesPem()));
            }
            HttpRequest.Builder request = HttpRequest.newBuilder(config.endpoint())
                    .timeout(config.idleTimeout() == null ? Duration.ofSeconds(30) : config.idleTimeout())
                    .POST(HttpRequest.BodyPublishers.ofByteArray(api.body(config, spec)));
            Map<String, String> headers = new LinkedHashMap<>(api.headers(config.apiKey()));
            headers.putAll(config.extraHeaders());
            headers.forEach((name, value) -> {
                try {
                    request.setHeader(name, value);
                } catch (IllegalArgumentException restricted) {
                    // Host, Connection, Content-Length: Java's client sets them itself
                }
            });
            HttpResponse<Void> response = http.build().send(request.build(), HttpResponse.BodyHandlers.discarding());
            return response.headers().firstValue("location").orElse(null);
        } catch (IOException | RuntimeException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * The problem in one line: "the server at host:port redirects the request (HTTP 308) to URL; llmperf4j follows no
     * redirect: point OPENAI_API_BASE there (http://host/v1)". The Location is resolved against {@code requested}
     * and its key-shaped query parameters redacted.
     *
     * @param requested    the URL that was redirected
     * @param location     its Location header, null when unknown
     * @param suffix       what the API appends to the base ("chat/completions", "models"), to name the base to use
     * @param baseVariable the variable to set, e.g. OPENAI_API_BASE
     */
    static String problem(URI requested, int status, String location, String suffix, String baseVariable) {
        String where = requested.getHost() + ":" + (requested.getPort() > 0 ? requested.getPort()
                : "https".equalsIgnoreCase(requested.getScheme()) ? 443 : 80);
        String head = "the server at " + where + " redirects " + Redaction.endpoint(requested.toString())
                + " (HTTP " + status + ")";
        URI target = resolve(requested, location);
        if (target == null) {
            return head + (location == null ? " without a Location" : " to '" + Redaction.secrets(location) + "'")
                    + "; llmperf4j follows no redirect: set " + baseVariable + " to the URL the server serves the "
                    + "API at (curl -i the request shows where it points)";
        }
        String path = target.getRawPath() == null ? "" : target.getRawPath();
        String base = path.endsWith("/" + suffix)
                ? Redaction.endpoint(target.getScheme() + "://" + target.getRawAuthority()
                + path.substring(0, path.length() - suffix.length() - 1)) : null;
        return head + " to " + Redaction.endpoint(target.toString()) + "; llmperf4j follows no redirect: point "
                + baseVariable + " there" + (base == null ? "" : " (" + base + ")");
    }

    private static URI resolve(URI requested, String location) {
        if (location == null || location.isBlank()) return null;
        try {
            URI target = requested.resolve(location.strip());
            return target.getScheme() == null || target.getRawAuthority() == null ? null : target;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
