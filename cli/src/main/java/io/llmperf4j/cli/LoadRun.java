package io.llmperf4j.cli;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.TokenCounting;

import java.io.PrintStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * token-benchmark with load flags (open loop, sweeps, warmup, iterations) or several models: the prepared workload
 * run at the planned load on each model in turn ({@link ModelRun}), with the staged Ctrl-C of {@link StopControl},
 * then, for several models, one comparison table. Exit code 130 when a signal cut anything short.
 */
final class LoadRun {
    private final TokenBenchmarkOptions options;
    private final CommonOptions common;
    private LoadPlan plan;
    private final PrintStream out;
    private final PrintStream err;

    LoadRun(TokenBenchmarkOptions options, LoadPlan plan, PrintStream out, PrintStream err) {
        this.options = options;
        this.common = options.common();
        this.plan = plan;
        this.out = out;
        this.err = err;
    }

    /**
     * What token-benchmark's workload part hands over, built as for its plain closed loop.
     *
     * @param specs               the requests, in order
     * @param promptTokens        counts the embedded server's {@code usage.prompt_tokens} (null: its heuristic)
     * @param outputTokens        fills each record's output token count (llmperf's count)
     * @param clientSpecialTokens what {@code outputTokens} adds to every text (Llama-2's BOS: 1), left out by
     *                            llmperf4j's own metrics
     * @param finishRun           applied to each run before it is reported and written (identity, or server counts)
     * @param settingsFor         the run's parameters for the endpoint shown in files (model and concurrency are
     *                            then set per model and level)
     */
    record Workload(List<RequestSpec> specs, TokenCounter promptTokens, TokenCounter outputTokens,
                    int clientSpecialTokens, UnaryOperator<BenchmarkRun> finishRun,
                    Function<String, BenchmarkSettings> settingsFor) {
    }

    /**
     * How a load run reaches the endpoint, as token-benchmark's plain closed loop does.
     *
     * @param uri     the URL requests go to (preflight check, shown in files)
     * @param clients a new client for a model with at most that many connections; called once per model, or once
     *                per fork with iterations (each client is closed after use)
     */
    record Connector(Function<EndpointUnderTest, URI> uri, ClientFactory clients) {
    }

    /** Makes a client for one model. */
    @FunctionalInterface
    interface ClientFactory {
        LlmClient create(EndpointUnderTest endpoint, String model, int maxConnections);
    }

    int run(Workload workload, Connector connector) {
        MetricsConfig metricsConfig = new MetricsConfig(new TokenCounting(workload.clientSpecialTokens(), true),
                options.slo());
        StopControl stops = new StopControl(err, plan.multiLevel() || plan.comparison());
        List<ModelRun> runs = new ArrayList<>();
        try (EndpointUnderTest endpoint = EndpointUnderTest.open(common.target(), EndpointUnderTest.ESTIMATED_PROMPT_TOKENS, err)) {
            URI uri = connector.uri().apply(endpoint);
            Preflight.checkReachable(uri);
            BenchmarkSettings base = workload.settingsFor().apply(uri.toString());
            // the workload's seed (--seed) also seeds the arrivals, unless --arrival-seed is given
            plan = plan.seededBy(base.seed());
            err.println("llmperf4j: load: " + plan.describe()
                    + (plan.comparison() ? "; models compared: " + String.join(", ", plan.models()) : ""));
            ModelRun.Context context = new ModelRun.Context(plan, workload.specs(), workload.outputTokens(),
                    workload.finishRun(), metricsConfig, stops, out, err, options.saveEvents());
            try (InterruptHandler ignored = InterruptHandler.installStaged(stops)) {
                for (int i = 0; i < plan.models().size(); i++) {
                    if (!stops.mayStartModel(i, plan.pause())) break;
                    String model = plan.models().get(i);
                    Supplier<LlmClient> clients = () -> connector.clients().create(endpoint, model,
                            plan.maxConnections());
                    ModelRun run = new ModelRun(model, ModelComparison.modelDir(common.resultsDir(), plan, model),
                            clients, base, context);
                    run.run();
                    runs.add(run);
                    run.print(out);
                }
            }
        }
        if (plan.comparison()) {
            ModelComparison.print(runs, plan, common.resultsDir(), out, err);
        }
        return stops.interrupted() ? ExitCodes.INTERRUPTED : ExitCodes.OK;
    }
}
