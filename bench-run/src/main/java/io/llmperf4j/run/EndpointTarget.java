package io.llmperf4j.run;

import io.llmperf4j.engine.client.ApiRegistry;

import java.time.Duration;

/**
 * Where a run's requests go: a remote endpoint (its API base, e.g. {@code http://host:8000/v1}, and key; the CLI
 * reads them from OPENAI_API_BASE and OPENAI_API_KEY, or the variables of the API in
 * {@link io.llmperf4j.engine.client.ApiRegistry}), or the embedded simulated server, started for the run.
 */
public sealed interface EndpointTarget permits EndpointTarget.Remote, EndpointTarget.Embedded {

    /**
     * An endpoint; the key is kept out of toString.
     *
     * @param baseVariable where the base came from, named in messages about it
     * @param keySource    where the key came from ("OPENAI_API_KEY", "--api-key-file key.txt"), named in the hint
     *                     when the server refuses it
     * @param readyWait    how long a run waits for the endpoint to accept connections (a server still starting);
     *                     zero: a refused connection fails the run at once, as llmperf
     */
    record Remote(String apiBase, String apiKey, String baseVariable, String keySource, Duration readyWait)
            implements EndpointTarget {
        public Remote {
            readyWait = readyWait == null ? Duration.ZERO : readyWait;
        }

        @Override
        public String toString() {
            return "Remote[" + apiBase + "]";
        }
    }

    /**
     * Why an API key cannot be used, as token-benchmark refuses it and doctor reports it: "OPENAI_API_KEY is not set"
     * (null), "OPENAI_API_KEY is set but empty" (blank); null when there is a key.
     *
     * @param keyVariable the variable the key comes from, e.g. OPENAI_API_KEY
     * @param key         its value, null when unset
     */
    static String keyProblem(String keyVariable, String key) {
        if (key == null) return keyVariable + " is not set";
        if (key.isBlank()) return keyVariable + " is set but empty";
        return null;
    }

    /** What to do about a {@link #keyProblem}: any value works for a server that checks no key. */
    static String keyFix(String keyVariable) {
        return "for local servers any dummy value works, e.g. " + keyVariable + "=EMPTY";
    }

    /**
     * The embedded simulated server, on a free loopback port.
     *
     * @param baseVariable the run's API's base variable, the one left unset (named in the notice)
     * @param keyVariable  its key variable, named beside it
     */
    record Embedded(String baseVariable, String keyVariable) implements EndpointTarget {
        public Embedded() {
            this(ApiRegistry.OPENAI_BASE, ApiRegistry.OPENAI_KEY);
        }
    }
}
