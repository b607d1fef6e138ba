package io.llmperf4j.cli;

import java.nio.file.Path;

/**
 * Where a run's requests go: the endpoint OPENAI_API_BASE names (with the key from OPENAI_API_KEY or
 * --api-key-file), or the embedded simulated server when OPENAI_API_BASE is unset.
 */
sealed interface EndpointTarget permits EndpointTarget.Remote, EndpointTarget.Embedded {
    String ENV_BASE = "OPENAI_API_BASE";
    String ENV_KEY = "OPENAI_API_KEY";

    /** An endpoint from OPENAI_API_BASE; the key is kept out of toString. */
    record Remote(String apiBase, String apiKey) implements EndpointTarget {
        @Override
        public String toString() {
            return "Remote[" + apiBase + "]";
        }
    }

    record Embedded() implements EndpointTarget {
    }

    /** llmperf's rule (both variables non-empty), with --api-key-file in place of OPENAI_API_KEY when given. */
    static EndpointTarget fromEnvironment(CliContext context, Path apiKeyFile) {
        String base = context.env(ENV_BASE);
        if (base == null) {
            return new Embedded();
        }
        if (base.isBlank()) {
            throw new UsageException(ENV_BASE + " is set but empty; set it to the server's base URL such as "
                    + "http://localhost:8000/v1, or unset it to benchmark the embedded simulated server");
        }
        String key = apiKeyFile != null ? ApiKeyFile.read(apiKeyFile) : context.env(ENV_KEY);
        if (key == null || key.isBlank()) {
            throw new UsageException(ENV_KEY + " is not set (or pass --api-key-file); llmperf requires it with "
                    + ENV_BASE + " (for local servers any dummy value works, e.g. " + ENV_KEY + "=EMPTY)");
        }
        return new Remote(base.strip(), key);
    }
}
