package io.llmperf4j.cli;

import io.llmperf4j.server.EarlyStop;
import io.llmperf4j.server.FaultKind;
import io.llmperf4j.server.FaultPlan;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import io.llmperf4j.tokenize.Tokenizers;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code llmperf4j serve}: an OpenAI-compatible server on its own, the simulator's or llama.cpp's. */
@Command(name = "serve",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        showDefaultValues = true,
        headerHeading = "",
        header = "An OpenAI-compatible server: the embedded simulator (--engine sim) or llama.cpp (--engine llama).",
        description = {
            "Runs an OpenAI-compatible server until interrupted.",
            "With --engine sim (the default), the simulator: POST /v1/chat/completions, /v1/completions and",
            "Anthropic's /v1/messages (streaming or not), POST /v1/embeddings, GET /v1/models, /health and Prometheus",
            "/metrics. Generated text is deterministic; each token is one Llama-2 token, so client and server token",
            "counts agree. max_tokens is always honoured.",
            "With --engine llama, a real engine: llama.cpp in the JVM with one decoding thread, running --model",
            "FILE.gguf, or without --model a generated tiny Llama-2-vocabulary model. It serves chat and text",
            "completions, /v1/messages, GET /v1/models and /health; /v1/embeddings and /metrics answer 404. EOS is",
            "ignored, so a response has max_tokens tokens unless one of the request's stop strings ends it first.",
            "Options marked (sim) or (llama) apply to that engine only, and so do the two sections of simulator",
            "options below; given with the other engine, they are refused."
        })
final class ServeCommand implements Callable<Integer> {
    /** The simulator's settings by their flags: its messages name its fields ("faultRate (1.5) must be ..."). */
    private static final Map<String, String> FLAGS = Map.of("faultRate", "--fault-rate",
            "maxConcurrentSequences", "--max-num-seqs", "tokensPerChunk", "--tokens-per-chunk",
            "stopProbability", "--stop-probability", "prefixBlockTokens", "--prefix-block-tokens",
            "prefixCacheBlocks", "--prefix-cache-blocks", "reasoningTokens", "--reasoning-tokens",
            "stallDuration", "--stall-ms", "port", "--port");
    /** Options that shape the simulator and mean nothing to a real engine. */
    private static final List<String> SIMULATOR_ONLY = List.of("--ttft-ms", "--inter-token-ms",
            "--tokens-per-chunk", "--max-concurrent-sequences", "--prefill-us-per-token", "--strict-model",
            "--api-key-file", "--fault-rate", "--fault-kinds", "--fault-seed", "--stall-ms", "--stop-probability",
            "--reasoning-tokens", "--prefill-us-per-image-token", "--prefix-cache-blocks",
            "--prefix-block-tokens", "--shared-prefix-cache");

    /** Options of the real engine that the simulator has no use for. */
    private static final List<String> LLAMA_ONLY = List.of("--ctx-size");

    private final CliContext context;

    @Spec
    CommandSpec spec;

    @Mixin
    DebugOption debugOption;

    @ArgGroup(validate = false, heading = "%nServer:%n")
    Server server = new Server();

    @ArgGroup(validate = false, heading = "%nSimulated timing and responses (--engine sim):%n")
    Timing timing = new Timing();

    @ArgGroup(validate = false, heading = "%nInjected faults (--engine sim):%n")
    Faults faults = new Faults();

    /** Where it listens, what it runs, whom it serves. */
    static final class Server {
        @Option(names = "--engine", defaultValue = "sim", paramLabel = "sim|llama",
                completionCandidates = CompletionValues.Engines.class,
                description = "sim: the simulator; llama: llama.cpp in the JVM (see above).")
        String engine;

        @Option(names = "--host", paramLabel = "HOST", defaultValue = SimulatorConfig.DEFAULT_HOST,
                description = "Address to bind.")
        String host;

        @Option(names = "--port", paramLabel = "PORT", defaultValue = "8000",
                description = "Port to bind (0 picks a free one).")
        int port;

        @Option(names = "--model", paramLabel = "MODEL", split = ",", defaultValue = SimulatorConfig.DEFAULT_MODEL_ID,
                description = "Model ids listed by /v1/models; with --engine llama, the GGUF model file to run.")
        List<String> models;

        @Option(names = "--strict-model",
                description = "(sim) Answer 404 for models not listed (default: serve any name).")
        boolean strictModel;

        @Option(names = "--api-key-file", paramLabel = "FILE",
                description = "(sim) Require 'Authorization: Bearer <key>' with the key read from this file.")
        Path apiKeyFile;

        @Option(names = "--ctx-size", paramLabel = "TOKENS", defaultValue = "2048",
                description = "(llama) Tokens of context (prompt plus completion) per request.")
        int contextLength;
    }

    /** The simulator's timing and the shape of its responses. */
    static final class Timing {
        @Option(names = "--ttft-ms", paramLabel = "MS", defaultValue = "50",
                description = "Time to first token in milliseconds, from request arrival, or from the slot grant "
                        + "for a request that queued for one (--max-num-seqs): a client then sees the queue wait plus "
                        + "this.")
        double ttftMillis;

        @Option(names = {"--inter-token-ms", "--inter-token-delay-ms"}, paramLabel = "MS", defaultValue = "10",
                description = "Delay between tokens in ms (--inter-token-delay-ms: this command's earlier name).")
        double interTokenDelayMillis;

        @Option(names = "--tokens-per-chunk", paramLabel = "N", defaultValue = "1",
                description = "Tokens carried by each SSE event.")
        int tokensPerChunk;

        @Option(names = {"--max-concurrent-sequences", "--max-num-seqs"}, paramLabel = "N", defaultValue = "64",
                description = "Sequences generated at once (the server's batch; --max-num-seqs: vLLM's name); more "
                        + "requests wait in a FIFO queue, so TTFT grows with load.")
        int maxConcurrentSequences;

        @Option(names = "--prefill-us-per-token", paramLabel = "US", defaultValue = "0",
                description = "Extra time to first token per prompt token, in microseconds.")
        double prefillMicrosPerToken;

        @Option(names = "--prefill-us-per-image-token", paramLabel = "US", defaultValue = "0",
                description = "Extra time to first token per image token (images count as vLLM counts Qwen2-VL's: "
                        + "one token per 28x28 pixels, plus 2; they are prompt tokens too), in microseconds.")
        double prefillMicrosPerImageToken;

        @Option(names = "--prefix-cache-blocks", paramLabel = "BLOCKS",
                defaultValue = "" + SimulatorConfig.DEFAULT_PREFIX_CACHE_BLOCKS,
                description = "KV blocks the simulated prefix cache keeps (LRU; 0 = no cache). Cached prompt tokens "
                        + "skip --prefill-us-per-token and are reported as usage.prompt_tokens_details.cached_tokens.")
        int prefixCacheBlocks;

        @Option(names = "--shared-prefix-cache",
                description = "One prefix cache for every model name served (a router, or aliases of one engine "
                        + "behind several names), instead of one per model as vLLM keeps.")
        boolean sharedPrefixCache;

        @Option(names = "--prefix-block-tokens", paramLabel = "TOKENS",
                defaultValue = "" + SimulatorConfig.DEFAULT_PREFIX_BLOCK_TOKENS,
                description = "Tokens per KV block of the prefix cache (vLLM's 16; 512 matches Mooncake traces' "
                        + "hash_ids).")
        int prefixBlockTokens;

        @Option(names = "--stop-probability", paramLabel = "P", defaultValue = "0",
                description = "Share of responses that end early with finish_reason 'stop' (unless ignore_eos).")
        double stopProbability;

        @Option(names = "--reasoning-tokens", paramLabel = "N", defaultValue = "0",
                description = "Tokens streamed first as delta.reasoning_content (chat), before the content.")
        int reasoningTokens;
    }

    /** Faults drawn at random, for testing a client's error handling. */
    static final class Faults {
        @Option(names = "--fault-rate", paramLabel = "RATE", defaultValue = "0",
                description = "Share of generation and embeddings requests that get a fault (0..1), drawn from "
                        + "--fault-kinds.")
        double faultRate;

        @Option(names = "--fault-kinds", split = ",", paramLabel = "KIND",
                description = "Fault kinds to draw from, equally weighted (default: all): http_400, http_401, "
                        + "http_403, http_404, http_429, http_500, http_503, error_event, reset, drop_mid_stream, "
                        + "malformed_event, missing_done, stall, oversized_event. A request can also force one with "
                        + "the header X-Sim-Fault: KIND.")
        List<String> faultKinds;

        @Option(names = "--fault-seed", paramLabel = "SEED", defaultValue = "11111",
                description = "Seed of the fault draws (and of --stop-probability).")
        long faultSeed;

        @Option(names = "--stall-ms", paramLabel = "MS", defaultValue = "1000",
                description = "How long a 'stall' fault pauses a stream.")
        long stallMillis;
    }

    ServeCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws InterruptedException {
        if (server.engine.equals("llama")) {
            var parsed = spec.commandLine().getParseResult();
            for (String option : SIMULATOR_ONLY) {
                if (parsed.hasMatchedOption(option)) throw new UsageException(option + " applies to --engine sim only");
            }
            boolean namedModel = parsed.hasMatchedOption("--model");
            return new LlamaServe(context).serve(namedModel ? server.models : List.of(), server.contextLength, server.host, server.port);
        }
        if (!server.engine.equals("sim")) throw new UsageException("--engine must be 'sim' or 'llama' (got '" + server.engine + "')");
        for (String option : LLAMA_ONLY) {
            if (spec.commandLine().getParseResult().hasMatchedOption(option)) {
                throw new UsageException(option + " applies to --engine llama only");
            }
        }
        SimulatorConfig config = config();
        try (SimulatedServer server = SimulatedServer.start(config)) {
            context.err().println("llmperf4j simulated server listening on " + server.baseUrl() + " ("
                    + server.transportName() + "); Ctrl-C to stop");
            Runtime.getRuntime().addShutdownHook(new Thread(server::close, "llmperf4j-serve-shutdown"));
            server.awaitClose();
        }
        return ExitCodes.OK;
    }

    private SimulatorConfig config() {
        SimulatorConfig.Builder builder = SimulatorConfig.builder()
                .host(server.host)
                .port(server.port)
                .timeToFirstToken(millis(timing.ttftMillis, "--ttft-ms"))
                .interTokenDelay(millis(timing.interTokenDelayMillis, "--inter-token-ms"))
                .prefillPerPromptToken(millis(timing.prefillMicrosPerToken / 1000.0, "--prefill-us-per-token"))
                .prefillPerImageToken(millis(timing.prefillMicrosPerImageToken / 1000.0,
                        "--prefill-us-per-image-token"))
                .modelIds(server.models)
                .acceptAnyModel(!server.strictModel);
        if (Tokenizers.builtInLlama2Available()) {
            builder.promptTokenCounter(Tokenizers.builtInLlama2());
        }
        if (server.apiKeyFile != null) {
            builder.apiKey(ApiKeyFile.read(server.apiKeyFile));
        }
        try {
            return builder.tokensPerChunk(timing.tokensPerChunk).maxConcurrentSequences(timing.maxConcurrentSequences)
                    .faultPlan(faultPlan())
                    .earlyStop(timing.stopProbability == 0 ? EarlyStop.none()
                            : EarlyStop.probability(timing.stopProbability, faults.faultSeed))
                    .reasoningTokens(timing.reasoningTokens)
                    .prefixCacheBlocks(timing.prefixCacheBlocks).prefixBlockTokens(timing.prefixBlockTokens)
                    .sharedPrefixCache(timing.sharedPrefixCache)
                    .build();
        } catch (IllegalArgumentException e) {
            throw new UsageException(flagNames(e.getMessage()));
        }
    }

    /** {@code message} with the simulator's field it names replaced by that field's flag. */
    static String flagNames(String message) {
        for (Map.Entry<String, String> e : FLAGS.entrySet()) {
            if (message.startsWith(e.getKey() + " (")) return e.getValue() + message.substring(e.getKey().length());
        }
        return message;
    }

    private FaultPlan faultPlan() {
        if (faults.faultRate == 0) {
            if (faults.faultKinds != null) {
                throw new UsageException("--fault-kinds needs --fault-rate above 0");
            }
            return FaultPlan.none();
        }
        Map<FaultKind, Double> weights = new EnumMap<>(FaultKind.class);
        if (faults.faultKinds == null) {
            for (FaultKind kind : FaultKind.values()) {
                weights.put(kind, 1.0);
            }
            weights.remove(FaultKind.NONE);
        } else {
            for (String name : faults.faultKinds) {
                try {
                    weights.put(FaultKind.fromHeaderValue(name), 1.0);
                } catch (IllegalArgumentException e) {
                    throw new UsageException("--fault-kinds: " + e.getMessage().replace(FaultKind.HEADER, "kind"));
                }
            }
        }
        return FaultPlan.random(faults.faultRate, weights, faults.faultSeed)
                .withStallDuration(Duration.ofMillis(faults.stallMillis));
    }

    private static Duration millis(double value, String option) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new UsageException(option + " (" + value + ") must be >= 0");
        }
        return Duration.ofNanos(Math.round(value * 1_000_000.0));
    }
}
