package io.llmperf4j.distributed;

import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.ConnectionMode;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.report.summary.Redaction;

import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * What a worker needs to build the same client as the coordinator would: everything but the API key, which never
 * crosses the cluster (each worker reads its own from its environment).
 *
 * @param endpoint              the URL requests go to
 * @param llmApi                {@code openai}, {@code openai-completions} or {@code anthropic}
 * @param stream                false for {@code --no-stream}
 * @param model                 the model id sent
 * @param samplingParams        merged into every body
 * @param includeUsage          whether to ask for {@code stream_options.include_usage}
 * @param maxConnections        this worker's connection cap (its share of the concurrency)
 * @param idleTimeoutMillis     idle timeout
 * @param requestTimeoutMillis  whole-request timeout, or null for none
 * @param connectTimeoutMillis  connect timeout
 * @param extraHeaders          extra HTTP headers
 * @param insecureTls           trust any certificate
 * @param trustedCertificatesPem the text of {@code --ca-cert} (CA certificates are public), or null for the JDK's
 *                              trust store
 * @param connectionMode        when the worker's connections open ({@code --connection-mode}); null is the default,
 *                              {@link ConnectionMode#PRECONNECT}
 */
public record ClientSpec(URI endpoint, String llmApi, boolean stream, String model, Map<String, Object> samplingParams,
                         boolean includeUsage, int maxConnections, long idleTimeoutMillis, Long requestTimeoutMillis,
                         long connectTimeoutMillis, Map<String, String> extraHeaders, boolean insecureTls,
                         String trustedCertificatesPem, ConnectionMode connectionMode) {

    public ClientSpec {
        if (connectionMode == null) connectionMode = ConnectionMode.PRECONNECT;
    }

    /** The APIs a worker can send ({@link ApiRegistry.Api#distributable()}; embeddings are not distributed). */
    public static boolean supports(String llmApi) {
        return ApiRegistry.find(llmApi).map(ApiRegistry.Api::distributable).orElse(false);
    }

    /**
     * The endpoint as lines and descriptions show it: the values of secret-named query parameters (a gateway's
     * {@code ?api-key=}) replaced, as in the result files ({@link Redaction#endpoint}).
     */
    public String shownEndpoint() {
        return Redaction.endpoint(endpoint.toString());
    }

    /** The adapter, from the one registry, with this spec's {@code stream} setting. */
    public LlmApi api() {
        if (!supports(llmApi)) {
            throw new IllegalArgumentException("a worker cannot send --llm-api " + llmApi);
        }
        return ApiRegistry.get(llmApi).adapter(stream);
    }

    /**
     * The client configuration with this worker's own {@code apiKey}; the CA certificates, if any, are written to a
     * file of this user's private folder in the temporary folder, named by their digest (the client reads a PEM file;
     * {@link TrustedCertificatesFile}).
     *
     * @throws UncheckedIOException when that file cannot be written
     */
    public ClientConfig clientConfig(String apiKey) {
        return ClientConfig.builder(endpoint, model)
                .apiKey(Secret.of(apiKey == null ? "" : apiKey))
                .additionalSamplingParams(samplingParams)
                .includeUsage(includeUsage)
                .maxConnections(maxConnections)
                .idleTimeout(Duration.ofMillis(idleTimeoutMillis))
                .extraHeaders(extraHeaders)
                .requestTimeout(requestTimeoutMillis == null ? null : Duration.ofMillis(requestTimeoutMillis))
                .connectTimeout(Duration.ofMillis(connectTimeoutMillis))
                .insecureTls(insecureTls)
                .trustedCertificatesPem(trustedCertificatesPem == null ? null : TrustedCertificatesFile.of(trustedCertificatesPem))
                .connectionMode(connectionMode)
                .build();
    }

    /**
     * Header values are not shown (they may hold a gateway's credential, as {@link ClientConfig#toString()} hides
     * them), nor the CA certificates' text, nor a key in the endpoint's query: this spec is part of every job a
     * worker is sent ({@link WorkerJob}).
     */
    @Override
    public String toString() {
        return "ClientSpec[endpoint=" + shownEndpoint() + ", llmApi=" + llmApi + ", stream=" + stream + ", model="
                + model + ", samplingParams=" + samplingParams + ", includeUsage=" + includeUsage + ", maxConnections="
                + maxConnections + ", idleTimeoutMillis=" + idleTimeoutMillis + ", requestTimeoutMillis="
                + requestTimeoutMillis + ", connectTimeoutMillis=" + connectTimeoutMillis + ", extraHeaders="
                + (extraHeaders == null ? null : extraHeaders.keySet()) + ", insecureTls=" + insecureTls
                + ", trustedCertificatesPem=" + (trustedCertificatesPem == null ? null
                : trustedCertificatesPem.length() + " chars") + ", connectionMode=" + connectionMode + "]";
    }

    /** The same client sending another model. */
    public ClientSpec withModel(String other) {
        return new ClientSpec(endpoint, llmApi, stream, other, samplingParams, includeUsage, maxConnections,
                idleTimeoutMillis, requestTimeoutMillis, connectTimeoutMillis, extraHeaders, insecureTls,
                trustedCertificatesPem, connectionMode);
    }

    /** The same client with another connection cap. */
    public ClientSpec withMaxConnections(int max) {
        return new ClientSpec(endpoint, llmApi, stream, model, samplingParams, includeUsage, max, idleTimeoutMillis,
                requestTimeoutMillis, connectTimeoutMillis, extraHeaders, insecureTls, trustedCertificatesPem,
                connectionMode);
    }

    /** The same client with other additional sampling params. */
    public ClientSpec withSamplingParams(Map<String, Object> params) {
        return new ClientSpec(endpoint, llmApi, stream, model, params, includeUsage, maxConnections,
                idleTimeoutMillis, requestTimeoutMillis, connectTimeoutMillis, extraHeaders, insecureTls,
                trustedCertificatesPem, connectionMode);
    }
}
