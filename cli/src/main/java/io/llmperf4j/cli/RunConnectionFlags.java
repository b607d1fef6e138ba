package io.llmperf4j.cli;

import picocli.CommandLine.Option;

/**
 * The connection flags of the commands that run a benchmark (token-benchmark, correctness): {@link ConnectionFlags},
 * which doctor shares, and the choice of the embedded simulated server, which doctor has no use for.
 */
final class RunConnectionFlags extends ConnectionFlags {
    @Option(names = "--simulator",
            description = "Benchmark the embedded simulated server (started on a free loopback port) with OPENAI_API_BASE "
                    + "unset, even though OPENAI_API_KEY is set or --model names a model: without it such a run is "
                    + "refused, as a real server was probably meant (llmperf fails without OPENAI_API_BASE). Not "
                    + "needed for the plain demo: no variables and no --model.")
    boolean simulator;
}
