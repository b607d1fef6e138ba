package io.llmperf4j.cli;

import picocli.CommandLine.Option;

/** token-benchmark's "Requests" section: what each request asks for beyond llmperf's body, and the client's warm-up. */
final class RequestFlags {
    @Option(names = "--no-stream-usage", negatable = false,
            description = "Do not send stream_options.include_usage (some servers reject it); server token counts "
                    + "are then not recorded.")
    boolean noStreamUsage;

    @Option(names = "--no-stream", negatable = false,
            description = "Send \"stream\": false and time the single JSON response (openai, openai-completions and "
                    + "anthropic). Without a stream there is no first token: TTFT is then the time to the complete "
                    + "response, equal to the end-to-end latency.")
    boolean noStream;

    @Option(names = "--embedding-batch-size", defaultValue = "1", paramLabel = "N",
            description = "Inputs per request with --llm-api embeddings (each a workload prompt).")
    int embeddingBatchSize;

    @Option(names = "--no-client-warmup",
            description = "Skip warming the client's own code against a private in-process simulator before the run "
                    + "(about a second for a short plain run; for longer ones until the JIT compilers settle, with "
                    + "the per-request path compiled: 8-9 s on 2 cores, at most 14); without it a fresh JVM adds JIT "
                    + "time to the first requests' TTFT. The endpoint under test never sees warm-up traffic.")
    boolean noClientWarmup;
}
