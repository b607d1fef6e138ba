package io.llmperf4j.cli;

import io.llmperf4j.engine.client.ApiRegistry;

import java.nio.file.Path;

/**
 * Where a run's requests go: the endpoint OPENAI_API_BASE names (with the key from OPENAI_API_KEY or
 * --api-key-file), or the embedded simulated server when OPENAI_API_BASE is unset. For {@code --llm-api anthropic}
 * the variables are ANTHROPIC_API_BASE and ANTHROPIC_API_KEY.
 */
sealed interface EndpointTarget permits EndpointTarget.Remote, EndpointTarget.Embedded {
    String ENV_BASE = ApiRegistry.OPENAI_BASE;

    /** The base URL variable of an --llm-api (from {@link ApiRegistry}). */
    static String baseVariable(String llmApi) {
        return CommonOptions.registered(llmApi).baseVariable();
    }

    /** The API key variable of an --llm-api (from {@link ApiRegistry}). */
    static String keyVariable(String llmApi) {
        return CommonOptions.registered(llmApi).keyVariable();
    }

    /** An endpoint from OPENAI_API_BASE (or {@code baseVariable}); the key is kept out of toString. */
    record Remote(String apiBase, String apiKey, String baseVariable) implements EndpointTarget {
        @Override
        public String toString() {
            return "Remote[" + apiBase + "]";
        }
    }

    record Embedded() implements EndpointTarget {
    }

    /** llmperf's rule (both variables non-empty), with --api-key-file in place of OPENAI_API_KEY when given. */
    static EndpointTarget fromEnvironment(CliContext context, Path apiKeyFile) {
        return fromEnvironment(context, apiKeyFile, "openai");
    }

    /** The same with the variables of {@code llmApi} ({@link #baseVariable}, {@link #keyVariable}). */
    static EndpointTarget fromEnvironment(CliContext context, Path apiKeyFile, String llmApi) {
        String baseVar = baseVariable(llmApi);
        String keyVar = keyVariable(llmApi);
        String base = context.env(baseVar);
        if (base == null) {
            return new Embedded();
        }
        if (base.isBlank()) {
            throw new UsageException(baseVar + " is set but empty; set it to the server's base URL such as "
                    + "http://localhost:8000/v1, or unset it to benchmark the embedded simulated server");
        }
        String key = apiKeyFile != null ? ApiKeyFile.read(apiKeyFile) : context.env(keyVar);
        if (key == null || key.isBlank()) {
            throw new UsageException(keyVar + " is not set (or pass --api-key-file); llmperf requires it with "
                    + baseVar + " (for local servers any dummy value works, e.g. " + keyVar + "=EMPTY)");
        }
        return new Remote(base.strip(), key, baseVar);
    }
}
