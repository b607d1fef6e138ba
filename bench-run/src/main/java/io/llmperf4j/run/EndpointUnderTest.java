package io.llmperf4j.run;

import io.llmperf4j.engine.client.ApiRegistry;

import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.model.TokenCounter;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;

import java.io.PrintStream;
import java.net.URI;

/** The server a run talks to: the one OPENAI_API_BASE names, or an embedded simulated server started for the run. */
final class EndpointUnderTest implements AutoCloseable {
    private final URI chatCompletionsUri;
    private final String apiBase;
    private final String baseVariable;
    private final String apiKey;
    private final SimulatedServer embedded;

    private EndpointUnderTest(String apiBase, String baseVariable, String apiKey, SimulatedServer embedded) {
        this.chatCompletionsUri = EndpointUrls.chatCompletions(apiBase);
        this.apiBase = apiBase;
        this.baseVariable = baseVariable;
        this.apiKey = apiKey;
        this.embedded = embedded;
    }

    /**
     * Given as the counter, the embedded server estimates {@code usage.prompt_tokens} instead of tokenizing each prompt: its single
     * counting thread (about a millisecond per 550-token prompt) would queue concurrent arrivals and add that queue
     * to every TTFT, so the demo would measure the simulator's tokenizer rather than its configured timing.
     */
    static final TokenCounter ESTIMATED_PROMPT_TOKENS = null;

    /**
     * The remote endpoint of {@code target}, or an embedded simulated server started for the run.
     *
     * @param promptTokenCounter counts the embedded server's {@code usage.prompt_tokens}; null for its heuristic
     */
    static EndpointUnderTest open(EndpointTarget target, TokenCounter promptTokenCounter, PrintStream err) {
        if (target instanceof EndpointTarget.Remote remote) {
            try {
                return new EndpointUnderTest(remote.apiBase(), remote.baseVariable(), remote.apiKey(), null);
            } catch (IllegalArgumentException e) {
                throw new InvalidRequestException(remote.baseVariable() + ": " + e.getMessage());
            }
        }
        EndpointTarget.Embedded embedded = target instanceof EndpointTarget.Embedded e ? e
                : new EndpointTarget.Embedded();
        SimulatorConfig config = SimulatorConfig.builder().promptTokenCounter(promptTokenCounter).build();
        SimulatedServer server = SimulatedServer.start(config);
        err.println(embedded.baseVariable() + " is not set: benchmarking the embedded simulated server at " + server.baseUrl()
                + " (time to first token " + config.timeToFirstToken().toMillis() + " ms, "
                + config.interTokenDelay().toMillis() + " ms between tokens, at most "
                + config.maxConcurrentSequences() + " concurrent sequences). "
                + "Set " + embedded.baseVariable() + " and " + embedded.keyVariable() + " to benchmark a real "
                + "server.");
        return new EndpointUnderTest(server.baseUrl(), ApiRegistry.OPENAI_BASE, "", server);
    }

    URI chatCompletionsUri() {
        return chatCompletionsUri;
    }

    /** The URL {@code api} is called at, by its URL rule. */
    URI uri(LlmApi api) {
        try {
            return api.endpoint(apiBase);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(baseVariable + ": " + e.getMessage());
        }
    }

    String apiKey() {
        return apiKey;
    }

    @Override
    public void close() {
        if (embedded != null) {
            embedded.close();
        }
    }
}
