package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import io.llmperf4j.servermetrics.exposition.ExpositionParser;
import io.llmperf4j.servermetrics.exposition.Sample;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A test class's simulated server on a loopback port, started before its first test and closed after its last:
 * {@code @RegisterExtension static final TestServer server = TestServer.of(b -> b.timeToFirstToken(...));}
 */
final class TestServer implements BeforeAllCallback, AfterAllCallback {
    private final UnaryOperator<SimulatorConfig.Builder> config;
    /**
     * One client for every poll of {@link #requestsFinished()}, made on the first: a client per poll (every 20 ms
     * while a test waits) started a selector thread of its own each time.
     */
    private HttpClient metricsClient;
    private SimulatedServer simulator;

    private TestServer(UnaryOperator<SimulatorConfig.Builder> config) {
        this.config = config;
    }

    static TestServer of(UnaryOperator<SimulatorConfig.Builder> config) {
        return new TestServer(config);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        simulator = SimulatedServer.start(config.apply(SimulatorConfig.builder()).build());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        simulator.close();
    }

    String baseUrl() {
        return simulator.baseUrl();
    }

    int port() {
        return simulator.port();
    }

    /**
     * The requests the server has answered to the end so far (not those the client cancelled), as its own
     * {@code /metrics} counts them: what a test waits on instead of guessing with sleeps.
     */
    long requestsFinished() throws IOException, InterruptedException {
        String origin = baseUrl().substring(0, baseUrl().length() - "/v1".length());
        HttpClient client;
        synchronized (this) {
            if (metricsClient == null) metricsClient = HttpClient.newHttpClient();
            client = metricsClient;
        }
        String metrics = client.send(HttpRequest.newBuilder(URI.create(origin + "/metrics"))
                .build(), HttpResponse.BodyHandlers.ofString()).body();
        long finished = 0;
        for (Sample sample : ExpositionParser.parse(metrics).samples()) {
            if (sample.name().equals("vllm:request_success_total")
                    && !"abort".equals(sample.labels().get("finished_reason"))) {
                finished += (long) sample.value();
            }
        }
        return finished;
    }

    /** The environment of a token-benchmark against this server, as a user would export it. */
    Map<String, String> env() {
        return Map.of("OPENAI_API_BASE", baseUrl(), "OPENAI_API_KEY", "k");
    }
}
