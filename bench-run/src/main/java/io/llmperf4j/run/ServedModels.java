package io.llmperf4j.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.engine.client.impl.Redactor;
import io.llmperf4j.model.PrintableText;
import io.llmperf4j.report.summary.Redaction;
import io.llmperf4j.servermetrics.scrape.TlsContexts;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a server says it serves, for a refusal of a wrong --model: one {@code GET <base>/models} with the run's
 * headers, key and TLS trust, read as OpenAI's {@code {"data":[{"id":...}]}}. A new user who mistypes the model then
 * reads the right id in the same line instead of having to curl for it.
 */
final class ServedModels {
    /** How many ids a line names before "and N more". */
    static final int SHOWN = 5;
    private static final int ERROR_CHARS = 200;
    private static final ObjectMapper JSON = new ObjectMapper();

    private ServedModels() {
    }

    /** {@code <base>/models} for the request URI {@code endpoint} of {@code api}, or null when it is not derivable. */
    static URI modelsUri(URI endpoint, LlmApi api) {
        String base = EndpointUrls.baseOf(endpoint.toString(), EndpointUrls.suffix(api));
        return base == null ? null : URI.create(base + "/models");
    }

    /**
     * "the server serves: a, b" (at most {@value #SHOWN} ids, then "and N more"), or "(GET URL did not answer: why)"
     * when the list could not be had; never an exception.
     *
     * @param wait how long the answer may take (the pre-run check's own wait)
     */
    static String describe(URI models, ClientConfig config, LlmApi api, Duration wait) {
        String shown = Redaction.endpoint(models.toString());
        // the engine's rule for a server's text: the key, or any part of it, and credential headers' values
        Redactor redactor = new Redactor(config.apiKey() == null ? Secret.none() : config.apiKey(),
                config.extraHeaders());
        HttpResponse<String> response;
        try {
            SSLContext tls = config.insecureTls() ? TlsContexts.trustingAnything()
                    : config.trustedCertificatesPem() == null ? null
                    : TlsContexts.trusting(config.trustedCertificatesPem());
            response = get(models, config.connectTimeout(), tls, api.headers(config.apiKey()), config.extraHeaders(),
                    wait);
        } catch (IOException | IllegalArgumentException e) {
            return didNotAnswer(shown, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage(),
                    redactor);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return didNotAnswer(shown, "interrupted", redactor);
        }
        if (response.statusCode() != 200) return didNotAnswer(shown, "HTTP " + response.statusCode(), redactor);
        List<String> ids = ids(response.body());
        if (ids == null) return didNotAnswer(shown, "no {\"data\":[{\"id\":...}]} in its answer", redactor);
        return ids.isEmpty() ? "GET " + shown + " lists no model" : "the server serves: " + list(ids);
    }

    /**
     * One {@code GET <base>/models} as a run sends its requests: the API's headers, then {@code extraHeaders}
     * (--header, which may replace one of them); doctor's key check sends the same.
     *
     * @param tls null: the JDK's default trust
     */
    static HttpResponse<String> get(URI models, Duration connectTimeout, SSLContext tls,
                                    Map<String, String> apiHeaders, Map<String, String> extraHeaders, Duration wait)
            throws IOException, InterruptedException {
        HttpClient.Builder http = HttpClient.newBuilder().connectTimeout(connectTimeout);
        if (tls != null) http.sslContext(tls);
        HttpRequest.Builder request = HttpRequest.newBuilder(models).timeout(wait).GET();
        Map<String, String> headers = new LinkedHashMap<>(apiHeaders);
        headers.putAll(extraHeaders);
        headers.forEach(request::setHeader);
        return http.build().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The ids of an OpenAI model list, or null when {@code body} is not one. */
    static List<String> ids(String body) {
        try {
            JsonNode data = JSON.readTree(body).path("data");
            if (!data.isArray()) return null;
            List<String> ids = new ArrayList<>();
            for (JsonNode entry : data) {
                if (entry.path("id").isTextual()) ids.add(PrintableText.of(entry.path("id").asText()));
            }
            return ids;
        } catch (IOException e) {
            return null;
        }
    }

    /** "a, b, c, d, e and 3 more": at most {@value #SHOWN} ids. */
    static String list(List<String> ids) {
        if (ids.size() <= SHOWN) return String.join(", ", ids);
        return String.join(", ", ids.subList(0, SHOWN)) + " and " + (ids.size() - SHOWN) + " more";
    }

    private static String didNotAnswer(String models, String why, Redactor redactor) {
        String text = Redaction.secrets(redactor.redact(why.replaceAll("\\s+", " ").strip()));
        if (text.length() > ERROR_CHARS) text = text.substring(0, ERROR_CHARS) + "...";
        return "(GET " + models + " did not answer: " + text + ")";
    }
}
