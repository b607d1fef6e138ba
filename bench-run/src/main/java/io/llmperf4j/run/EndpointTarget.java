package io.llmperf4j.run;

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
     * @param readyWait    how long a run waits for the endpoint to accept connections (a server still starting);
     *                     zero: a refused connection fails the run at once, as llmperf
     */
    record Remote(String apiBase, String apiKey, String baseVariable, Duration readyWait) implements EndpointTarget {
        public Remote {
            readyWait = readyWait == null ? Duration.ZERO : readyWait;
        }

        public Remote(String apiBase, String apiKey, String baseVariable) {
            this(apiBase, apiKey, baseVariable, Duration.ZERO);
        }

        @Override
        public String toString() {
            return "Remote[" + apiBase + "]";
        }
    }

    /** The embedded simulated server, on a free loopback port. */
    record Embedded() implements EndpointTarget {
    }
}
