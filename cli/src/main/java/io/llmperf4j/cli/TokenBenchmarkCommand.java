package io.llmperf4j.cli;

import io.llmperf4j.run.RunRequest;
import io.llmperf4j.run.Runner;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/**
 * llmperf's {@code token_benchmark_ray.py}: the same flags, types, defaults and environment variables (the help's
 * first section), plus our own, one help section per topic.
 */
@Command(name = "token-benchmark",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        showDefaultValues = true,
        abbreviateSynopsis = true,
        headerHeading = "",
        header = "llmperf's token benchmark: TTFT, ITL, E2E and throughput of an endpoint.",
        description = {
            "Runs llmperf's token benchmark: prompts of normally distributed token length, closed loop at a fixed",
            "concurrency, llmperf's result files and printed block.",
            "",
            "The endpoint comes from OPENAI_API_BASE (e.g. http://host:8000/v1, llmperf's rule: '/chat/completions'",
            "is appended) and the key from OPENAI_API_KEY (any dummy value for local servers). With OPENAI_API_BASE",
            "unset, the embedded simulated server is started on a free loopback port and benchmarked instead; a",
            "run that sets OPENAI_API_KEY or names a --model then needs --simulator (a real server was probably meant)."
        },
        footerHeading = "%nExamples:%n",
        footer = {
            "  bin/llmperf4j token-benchmark --results-dir results/first   # OPENAI_API_BASE unset: the simulator",
            "  OPENAI_API_BASE=http://localhost:8000/v1 OPENAI_API_KEY=EMPTY bin/llmperf4j token-benchmark \\",
            "    --model meta-llama/Llama-2-7b-chat-hf --max-num-completed-requests 100 --results-dir out"
        })
final class TokenBenchmarkCommand implements Callable<Integer> {
    private final CliContext context;

    @Spec
    CommandSpec spec;

    @ArgGroup(validate = false, heading = "%nllmperf's flags (token_benchmark_ray.py's names, types and defaults):%n")
    LlmperfBenchmarkFlags llmperf = new LlmperfBenchmarkFlags();

    @ArgGroup(validate = false, heading = "%nWorkload: prompts and their lengths:%n")
    WorkloadFlags workload = new WorkloadFlags();

    @ArgGroup(validate = false, heading = "%nRequests:%n")
    RequestFlags requests = new RequestFlags();

    @ArgGroup(validate = false, heading = "%nLoad: open loop, sweeps, warmup, JMH-style iterations:%n")
    LoadFlags load = new LoadFlags();

    @ArgGroup(validate = false, heading = "%nConnection:%n")
    RunConnectionFlags connection = new RunConnectionFlags();

    @ArgGroup(validate = false, heading = "%nResults and checks:%n")
    ResultsFlags results = new ResultsFlags();

    @ArgGroup(validate = false, heading = "%nServer metrics (Prometheus, scraped during the run):%n")
    ServerMetricsFlags serverMetrics = new ServerMetricsFlags();

    @ArgGroup(validate = false, heading = "%nDistributed runs (the requests sent by 'llmperf4j worker' processes):%n")
    ClusterFlags cluster = new ClusterFlags();

    @ArgGroup(validate = false, heading = "%nService-level objectives and capacity search:%n")
    SearchFlags search = new SearchFlags();

    @ArgGroup(exclusive = false, validate = false, heading = "%nSessions and shared prefixes:%n")
    SessionFlags sessions = new SessionFlags();

    @ArgGroup(exclusive = false, validate = false, heading = "%nTrace replay:%n")
    TraceFlags trace = new TraceFlags();

    @ArgGroup(validate = false, heading = "%nImages (vision-language models, docs/images.md):%n")
    ImageFlags images = new ImageFlags();

    @Mixin
    DebugOption debugOption;

    @Mixin
    OutputFlags output;

    TokenBenchmarkCommand(CliContext context) {
        this.context = context;
    }

    /** Whether {@code option} (any of its names, e.g. "--timeout") was given on the command line, not defaulted. */
    boolean given(String option) {
        return spec != null && spec.commandLine() != null && spec.commandLine().getParseResult() != null
                && spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    @Override
    public Integer call() {
        try (ScriptOutput console = ScriptOutput.open(output, context)) {
            RunRequest request = TokenBenchmarkOptions.resolve(this, console.context(), console.resultsDir(
                    llmperf.common.resultsDir));
            Runner runner = new Runner(console.report(), console.messages());
            if (results.maxErrorRate != null) {
                runner.maxErrorRate(results.maxErrorRate);
            }
            if (search.sloExit) {
                runner.sloExit();
            }
            if (output.quiet) {
                runner.quiet(); // the report is hidden: its warnings go to stderr, one line each
            }
            int exitCode = runner.run(request).exitCode();
            SimulatorNotice.print(request.common(), console.report()); // below llmperf's block, with the report
            console.printSummary(request);
            return exitCode;
        }
    }
}
