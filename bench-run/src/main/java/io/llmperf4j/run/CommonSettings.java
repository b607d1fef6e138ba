package io.llmperf4j.run;

import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.ConnectionMode;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.model.RequestSpec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What every run that sends requests shares (llmperf's token benchmark and correctness test): the endpoint and its
 * API, the model, llmperf's closed-loop numbers, the request body's extra parameters, where results go, and the
 * connection options.
 *
 * @param target                   the endpoint (from OPENAI_API_BASE / ANTHROPIC_API_BASE) or the embedded server
 * @param model                    the model id sent (several, comma-separated, compare models)
 * @param numConcurrentRequests    llmperf's --num-concurrent-requests
 * @param timeoutSeconds           llmperf's --timeout: the run's time limit
 * @param maxNumCompletedRequests  llmperf's --max-num-completed-requests
 * @param additionalSamplingParams merged into every body
 * @param resultsDir               where files go, or null to write none
 * @param llmApi                   an {@link ApiRegistry} name
 * @param metadata                 extra summary fields
 * @param idleTimeout              silence from the server before a request fails
 * @param extraHeaders             extra request headers
 * @param caCert                   PEM file of CA certificates to trust, or null
 * @param requestTimeout           whole-request limit, or null
 * @param connectTimeout           TCP connect (and TLS handshake) limit
 * @param insecureTls              trust any certificate
 * @param overwrite                replace an earlier run's results in {@code resultsDir} instead of refusing
 * @param connectionMode           when connections are opened: before the clock (default), on demand, or one per
 *                                 request as llmperf does; null means {@link ConnectionMode#PRECONNECT}
 * @param scrapeHeaders            headers for the server-metrics scrape alone (--server-metrics-header), sent to the
 *                                 metrics URL whatever its origin; null means none
 */
public record CommonSettings(
        EndpointTarget target,
        String model,
        int numConcurrentRequests,
        int timeoutSeconds,
        int maxNumCompletedRequests,
        Map<String, Object> additionalSamplingParams,
        Path resultsDir,
        String llmApi,
        Map<String, String> metadata,
        Duration idleTimeout,
        Map<String, String> extraHeaders,
        Path caCert,
        Duration requestTimeout,
        Duration connectTimeout,
        boolean insecureTls,
        boolean overwrite,
        ConnectionMode connectionMode,
        Map<String, String> scrapeHeaders) {

    public CommonSettings {
        connectionMode = connectionMode == null ? ConnectionMode.PRECONNECT : connectionMode;
        scrapeHeaders = scrapeHeaders == null ? Map.of() : Map.copyOf(scrapeHeaders);
    }

    /** The same with another request count: a replayed trace's, which sets how many requests the run sends. */
    public CommonSettings withMaxNumCompletedRequests(int requests) {
        return new CommonSettings(target, model, numConcurrentRequests, timeoutSeconds, requests,
                additionalSamplingParams, resultsDir, llmApi, metadata, idleTimeout, extraHeaders, caCert,
                requestTimeout, connectTimeout, insecureTls, overwrite, connectionMode, scrapeHeaders);
    }

    /** The same settings with another run time limit (a trace replay's: its span plus --timeout). */
    public CommonSettings withTimeoutSeconds(int seconds) {
        return new CommonSettings(target, model, numConcurrentRequests, seconds, maxNumCompletedRequests,
                additionalSamplingParams, resultsDir, llmApi, metadata, idleTimeout, extraHeaders, caCert,
                requestTimeout, connectTimeout, insecureTls, overwrite, connectionMode, scrapeHeaders);
    }

    /** How this run reaches the endpoint beside its key: TLS trust and extra headers (doctor's, the scrape's). */
    public EndpointAccess access() {
        return new EndpointAccess(caCert, insecureTls, extraHeaders, scrapeHeaders);
    }

    /** The registry's entry of this run's API. */
    public ApiRegistry.Api registered() {
        return registered(llmApi);
    }

    /** The registry's entry of an API name, else an {@link InvalidRequestException} listing the supported ones. */
    public static ApiRegistry.Api registered(String llmApi) {
        try {
            return ApiRegistry.get(llmApi);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(e.getMessage());
        }
    }

    /**
     * The adapter of this run's API.
     *
     * @param stream          false for --no-stream (every API but embeddings, which never streams)
     * @param embeddingInputs the inputs of each embeddings request (by its spec); null for one input, the prompt
     */
    LlmApi api(boolean stream, Function<RequestSpec, List<String>> embeddingInputs) {
        return registered().adapter(stream, embeddingInputs);
    }

    /**
     * The client for {@code endpoint}: this run's model, key, headers, CA certificates, idle timeout and one
     * connection per concurrent request.
     *
     * @param samplingParams merged into each body after max_tokens (the additional params, or llmperf's correctness
     *                       params with them)
     * @param includeUsage   whether to request {@code stream_options.include_usage}
     */
    ClientConfig clientConfig(EndpointUnderTest endpoint, LlmApi api, Map<String, ?> samplingParams,
                              boolean includeUsage) {
        return clientConfig(endpoint, api, samplingParams, includeUsage, model, numConcurrentRequests);
    }

    /**
     * As {@link #clientConfig(EndpointUnderTest, LlmApi, Map, boolean)} for {@code model} with at most
     * {@code maxConnections} connections: one model of --model a,b; a sweep's highest concurrency; an open loop's cap.
     */
    ClientConfig clientConfig(EndpointUnderTest endpoint, LlmApi api, Map<String, ?> samplingParams,
                              boolean includeUsage, String model, int maxConnections) {
        return ClientConfig.builder(endpoint.uri(api), model)
                .apiKey(Secret.of(endpoint.apiKey()))
                .additionalSamplingParams(samplingParams)
                .includeUsage(includeUsage)
                .maxConnections(maxConnections)
                .idleTimeout(idleTimeout)
                .extraHeaders(extraHeaders)
                .trustedCertificatesPem(caCert)
                .requestTimeout(requestTimeout)
                .connectTimeout(connectTimeout)
                .insecureTls(insecureTls)
                .connectionMode(connectionMode)
                .build();
    }

    /** The one place a run's client is made: {@code api} at the endpoint, with this run's connection options. */
    NettyLlmClient newClient(EndpointUnderTest endpoint, LlmApi api, Map<String, ?> samplingParams,
                                    boolean includeUsage) {
        return new NettyLlmClient(clientConfig(endpoint, api, samplingParams, includeUsage), api);
    }
}
