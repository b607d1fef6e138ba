package io.llmperf4j.cli;

import picocli.CommandLine.Option;

import java.nio.file.Path;

/** token-benchmark's workload flags beyond llmperf's four token-distribution flags (all llmperf4j's own). */
final class WorkloadFlags {
    @Option(names = "--tokenizer", paramLabel = "SPEC", defaultValue = "llama-2",
            description = "What counts tokens: 'llama-2' (built in, llmperf's), a tokenizer.json or a "
                    + "folder holding one, a HuggingFace id ORG/NAME from the local HF cache (HF_HOME), "
                    + "cl100k_base | o200k_base | p50k_base | r50k_base (jtokkit), or 'server' (output tokens from "
                    + "the response usage; prompts are still built with llama-2). Input counts never include the "
                    + "server's chat template.")
    String tokenizer;

    @Option(names = "--allow-download",
            description = "Let --tokenizer ORG/NAME fetch from the HuggingFace hub when not cached.")
    boolean allowDownload;

    @Option(names = "--prompt-mode", defaultValue = "llmperf", paramLabel = "llmperf|exact",
            completionCandidates = CompletionValues.PromptModes.class,
            description = "'llmperf' reproduces llmperf's prompts and its input-token over-count so "
                    + "numbers compare with llmperf; 'exact' makes every prompt exactly the sampled number of "
                    + "tokens (BOS included) and reports that real count.")
    String promptMode;

    @Option(names = "--corpus", paramLabel = "FILE",
            description = "Text whose lines fill the prompts (llmperf uses its sonnet.txt). "
                    + "Default: the project's generated corpus.")
    Path corpus;

    @Option(names = "--seed", defaultValue = "11111", paramLabel = "SEED",
            description = "Workload seed (llmperf always uses 11111); same seed, same workload.")
    long seed;

    @Option(names = "--input-lengths", paramLabel = "DIST",
            description = "Prompt length distribution instead of --mean/--stddev-input-tokens: "
                    + "normal:MEAN,SD[,MIN,MAX] | uniform:MIN,MAX | fixed:N.")
    String inputLengths;

    @Option(names = "--output-lengths", paramLabel = "DIST",
            description = "max_tokens distribution instead of --mean/--stddev-output-tokens (same forms).")
    String outputLengths;

    @Option(names = "--dataset", paramLabel = "KIND:FILE",
            description = "Prompts from a file: sharegpt:FILE (ShareGPT conversations, JSON or JSONL; "
                    + "max_tokens = the reply's length) or prompts:FILE (JSONL of {\"prompt\": ..., \"max_tokens\": ...}).")
    String dataset;

    @Option(names = "--dataset-prompt-tokens", paramLabel = "MIN,MAX",
            description = "ShareGPT filter on prompt tokens.")
    String datasetPromptTokens;

    @Option(names = "--dataset-output-tokens", paramLabel = "MIN,MAX",
            description = "ShareGPT filter on reply (max_tokens) tokens.")
    String datasetOutputTokens;

    @Option(names = "--prompt", paramLabel = "TEXT",
            description = "One fixed prompt for every request (the sweep script's style); "
                    + "use with --max-tokens.")
    String prompt;

    @Option(names = "--max-tokens", paramLabel = "N", description = "max_tokens for --prompt.")
    Integer maxTokens;

    @Option(names = "--scenario", paramLabel = "t1|t2|t3|t4",
            completionCandidates = CompletionValues.Scenarios.class,
            description = "A preset of the sweep guide, by max_tokens: t1 TTFT baseline (16 output tokens), t2 "
                    + "real-time chat (64), t3 main comparison (512), t4 long generation (2048, t3's prompt).")
    String scenario;

    @Option(names = "--scenario-lang", paramLabel = "en|zh", defaultValue = "en",
            completionCandidates = CompletionValues.ScenarioLanguages.class,
            description = "Language of the --scenario prompt.")
    String scenarioLang;

    @Option(names = "--prefix-tokens", paramLabel = "N",
            description = "Prepend the same N-token prefix to every prompt (prefix-cache experiments).")
    Integer prefixTokens;

    @Option(names = "--save-workload", paramLabel = "FILE",
            description = "Write the workload (prompts, token counts, max_tokens, tokenizer, seed, "
                    + "source digest) as a JSONL manifest, for exact replays. A sweep's synthetic prompts (each "
                    + "level draws its own) are written level by level in one file.")
    Path saveWorkload;

    @Option(names = "--workload", paramLabel = "FILE",
            description = "Replay a manifest written by --save-workload (A/B runs across models or "
                    + "server versions); a sweep's is replayed level by level: each level sends what it sent.")
    Path workload;
}
