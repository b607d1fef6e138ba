package io.llmperf4j.run;

import io.llmperf4j.engine.BenchmarkResult;
import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.LlmApi;

import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;

/** The levels run from this process: the engine's {@code Benchmark}, with a client per model (or per fork). */
final class LocalExecutor implements LoadExecutor {
    private final RunRequest request;
    private final EndpointUnderTest endpoint;
    private final LlmApi api;
    private final URI uri;

    private LocalExecutor(RunRequest request, EndpointUnderTest endpoint, LlmApi api, URI uri) {
        this.request = request;
        this.endpoint = endpoint;
        this.api = api;
        this.uri = uri;
    }

    /** Opens the endpoint (starting the embedded server when there is none) and checks it can be reached. */
    static LocalExecutor open(RunRequest request, PrintStream err) {
        CommonSettings common = request.common();
        EndpointUnderTest endpoint = EndpointUnderTest.open(common.target(), EndpointUnderTest.ESTIMATED_PROMPT_TOKENS,
                err);
        try {
            LlmApi api = common.api(request.stream(), null).withImageDetail(request.workload().imageDetail());
            URI uri = endpoint.uri(api);
            Preflight.awaitReachable(uri, common.target(), err);
            if (common.target() instanceof EndpointTarget.Remote remote) { // the embedded simulator needs no check
                for (String model : request.load().models()) {
                    Preflight.checkRequest(common.clientConfig(endpoint, api,
                            Preflight.checkParams(common.additionalSamplingParams()), request.includeUsage(), model,
                            1), api, endpoint.apiKey(), remote.keySource(),
                            Duration.ofSeconds(common.timeoutSeconds()), err);
                }
            }
            return new LocalExecutor(request, endpoint, api, uri);
        } catch (RuntimeException e) {
            endpoint.close();
            throw e;
        }
    }

    @Override
    public URI uri() {
        return uri;
    }

    @Override
    public String apiKey() {
        return endpoint.apiKey();
    }

    @Override
    public String where(LoadPlan plan) {
        return "";
    }

    @Override
    public BenchmarkResult run(String model, LoadPlan plan, ModelRun run, StopControl stops) {
        CommonSettings common = request.common();
        return run.run(() -> new NettyLlmClient(common.clientConfig(endpoint, api,
                common.additionalSamplingParams(), request.includeUsage(), model, plan.maxConnections()), api));
    }

    @Override
    public void close() {
        endpoint.close();
    }
}
