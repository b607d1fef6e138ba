package io.llmperf4j.cli;

import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.ChatCompletionsClient;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.model.RequestSpec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The inputs token-benchmark and correctness share, after validation: flags checked, environment read, JSON and
 * metadata parsed. Every problem is a {@link UsageException}, raised before anything is started or sent.
 */
record CommonOptions(
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
        boolean insecureTls) {

    static CommonOptions resolve(CommonFlags flags, int maxNumCompletedRequests, ConnectionFlags connection,
                                 CliContext context) {
        atLeast("--num-concurrent-requests", flags.numConcurrentRequests, 1);
        atLeast("--timeout", flags.timeoutSeconds, 1);
        atLeast("--max-num-completed-requests", maxNumCompletedRequests, 1);
        atLeast("--idle-timeout", connection.idleTimeoutSeconds, 1);
        atLeast("--connect-timeout", connection.connectTimeoutSeconds, 1);
        if (connection.requestTimeoutSeconds != null) {
            atLeast("--request-timeout", connection.requestTimeoutSeconds, 1);
        }
        if (connection.insecure && connection.caCert != null) {
            throw new UsageException("--insecure and --ca-cert contradict each other: trust any certificate, "
                    + "or only those in the file");
        }
        checkLlmApi(flags.llmApi);
        Map<String, Object> samplingParams = SamplingParamsParser.parse(flags.additionalSamplingParams);
        Map<String, String> metadata = MetadataParser.parse(flags.metadata);
        requireReadable("--ca-cert", connection.caCert);
        Map<String, String> headers = parseHeaders(connection.headers);
        EndpointTarget target = EndpointTarget.fromEnvironment(context, connection.apiKeyFile, flags.llmApi);
        String model = flags.model;
        if (model == null || model.isBlank()) {
            if (target instanceof EndpointTarget.Remote) {
                throw new UsageException("--model is required when " + EndpointTarget.baseVariable(flags.llmApi)
                        + " is set");
            }
            model = CommonFlags.EMBEDDED_MODEL;
        }
        Path resultsDir = flags.resultsDir.isEmpty() ? null : Path.of(flags.resultsDir);
        CommonOptions options = new CommonOptions(target, model, flags.numConcurrentRequests, flags.timeoutSeconds,
                maxNumCompletedRequests, samplingParams, resultsDir, flags.llmApi, metadata,
                Duration.ofSeconds(connection.idleTimeoutSeconds), headers, connection.caCert,
                connection.requestTimeoutSeconds == null ? null : Duration.ofSeconds(connection.requestTimeoutSeconds),
                Duration.ofSeconds(connection.connectTimeoutSeconds), connection.insecure);
        if (connection.insecure) {
            context.err().println("llmperf4j: warning: --insecure: TLS certificates and host names are NOT verified");
        }
        return options;
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
     * {@code maxConnections} connections: token-benchmark's load runs (one model of --model a,b; a sweep's highest
     * concurrency; an open loop's cap).
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
                .build();
    }

    /**
     * The adapter of this run's --llm-api.
     *
     * @param stream          false for --no-stream (every API but embeddings, which never streams)
     * @param embeddingInputs the inputs of each embeddings request (by its spec); null for one input, the prompt
     */
    LlmApi api(boolean stream, Function<RequestSpec, List<String>> embeddingInputs) {
        return apiFor(llmApi, stream, embeddingInputs);
    }

    /** The adapter of an --llm-api name (see {@link #api}). */
    static LlmApi apiFor(String llmApi, boolean stream, Function<RequestSpec, List<String>> embeddingInputs) {
        return registered(llmApi).adapter(stream, embeddingInputs);
    }

    /** The registry's entry of an --llm-api, else a {@link UsageException} listing the supported ones. */
    static ApiRegistry.Api registered(String llmApi) {
        try {
            return ApiRegistry.get(llmApi);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /** The one place a run's client is made: {@code api} at the endpoint, with this run's connection options. */
    ChatCompletionsClient newClient(EndpointUnderTest endpoint, LlmApi api, Map<String, ?> samplingParams,
                                    boolean includeUsage) {
        return new ChatCompletionsClient(clientConfig(endpoint, api, samplingParams, includeUsage), api);
    }

    static void atLeast(String option, int value, int minimum) {
        if (value < minimum) {
            throw new UsageException(option + " (" + value + ") must be >= " + minimum);
        }
    }

    static void requireReadable(String option, Path file) {
        if (file != null && !Files.isRegularFile(file)) {
            throw new UsageException(option + " " + file + " is not a readable file");
        }
    }

    private static Map<String, String> parseHeaders(List<String> headers) {
        Map<String, String> parsed = new LinkedHashMap<>();
        for (String header : headers) {
            int colon = header.indexOf(':');
            String name = colon < 0 ? "" : header.substring(0, colon).strip();
            if (name.isEmpty() || !name.chars().allMatch(ch -> ch > 32 && ch < 127 && ch != ':')) {
                throw new UsageException("--header must look like 'Name: value' (got a header without a valid name)");
            }
            parsed.put(name, header.substring(colon + 1).strip());
        }
        return parsed;
    }

    /** An --llm-api this tool supports, else a {@link UsageException} listing them. */
    static void checkLlmApi(String llmApi) {
        registered(llmApi);
    }
}
