package io.llmperf4j.cli;

import io.llmperf4j.server.EarlyStop;
import io.llmperf4j.server.FaultKind;
import io.llmperf4j.server.FaultPlan;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import io.llmperf4j.tokenize.Tokenizers;
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

/** {@code llmperf4j serve}: the embedded OpenAI-compatible simulated server, on its own. */
@Command(name = "serve",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        showDefaultValues = true,
        headerHeading = "",
        header = "The embedded OpenAI-compatible simulated server.",
        description = {
            "Runs the OpenAI-compatible simulated server until interrupted: POST /v1/chat/completions and",
            "/v1/completions (streaming or not), GET /v1/models. Generated text is deterministic; each token is one",
            "Llama-2 token, so client and server token counts agree. max_tokens is always honoured.",
            "With --engine llama a real engine answers instead: llama.cpp in the JVM with one decoding thread,",
            "running --model FILE.gguf, or without --model a generated tiny Llama-2-vocabulary model; EOS is ignored,",
            "so every response has max_tokens tokens. The simulator's timing, fault and reasoning options do not apply."
        })
final class ServeCommand implements Callable<Integer> {
    /** Options that shape the simulator and mean nothing to a real engine. */
    private static final List<String> SIMULATOR_ONLY = List.of("--ttft-ms", "--inter-token-delay-ms",
            "--tokens-per-chunk", "--max-concurrent-sequences", "--prefill-us-per-token", "--strict-model",
            "--api-key-file", "--fault-rate", "--fault-kinds", "--fault-seed", "--stall-ms", "--stop-probability",
            "--reasoning-tokens");

    private final CliContext context;

    @Spec
    CommandSpec spec;

    @Mixin
    DebugOption debugOption;

    @Option(names = "--engine", defaultValue = "sim", paramLabel = "sim|llama",
            description = "sim: the simulator; llama: llama.cpp in the JVM (see above).")
    String engine;

    @Option(names = "--ctx-size", defaultValue = "2048",
            description = "--engine llama: tokens of context (prompt plus completion) per request.")
    int contextLength;

    @Option(names = "--host", defaultValue = SimulatorConfig.DEFAULT_HOST, description = "Address to bind.")
    String host;

    @Option(names = "--port", defaultValue = "8000", description = "Port to bind (0 picks a free one).")
    int port;

    @Option(names = "--ttft-ms", defaultValue = "50",
            description = "Time to first token in milliseconds, from request arrival (queueing included).")
    double ttftMillis;

    @Option(names = "--inter-token-delay-ms", defaultValue = "10", description = "Delay between tokens in ms.")
    double interTokenDelayMillis;

    @Option(names = "--tokens-per-chunk", defaultValue = "1", description = "Tokens carried by each SSE event.")
    int tokensPerChunk;

    @Option(names = {"--max-concurrent-sequences", "--max-num-seqs"}, defaultValue = "64",
            description = "Sequences generated at once; more requests wait in a FIFO queue, so TTFT grows with load.")
    int maxConcurrentSequences;

    @Option(names = "--prefill-us-per-token", defaultValue = "0",
            description = "Extra time to first token per prompt token, in microseconds.")
    double prefillMicrosPerToken;

    @Option(names = "--model", split = ",", defaultValue = SimulatorConfig.DEFAULT_MODEL_ID,
            description = "Model ids listed by /v1/models; with --engine llama, the GGUF model file to run.")
    List<String> models;

    @Option(names = "--strict-model", description = "Answer 404 for models not listed (default: serve any name).")
    boolean strictModel;

    @Option(names = "--api-key-file", paramLabel = "FILE",
            description = "Require 'Authorization: Bearer <key>' with the key read from this file.")
    Path apiKeyFile;

    @Option(names = "--fault-rate", defaultValue = "0",
            description = "Share of generation and embeddings requests that get a fault (0..1), drawn from --fault-kinds.")
    double faultRate;

    @Option(names = "--fault-kinds", split = ",", paramLabel = "KIND",
            description = "Fault kinds to draw from, equally weighted (default: all): http_400, http_401, "
                    + "http_403, http_404, http_429, http_500, http_503, error_event, reset, drop_mid_stream, "
                    + "malformed_event, missing_done, stall, oversized_event. A request can also force one with "
                    + "the header X-Sim-Fault: KIND.")
    List<String> faultKinds;

    @Option(names = "--fault-seed", defaultValue = "11111", description = "Seed of the fault draws.")
    long faultSeed;

    @Option(names = "--stall-ms", defaultValue = "1000", description = "How long a 'stall' fault pauses a stream.")
    long stallMillis;

    @Option(names = "--stop-probability", defaultValue = "0",
            description = "Share of responses that end early with finish_reason 'stop' (unless ignore_eos).")
    double stopProbability;

    @Option(names = "--reasoning-tokens", defaultValue = "0",
            description = "Tokens streamed first as delta.reasoning_content (chat), before the content.")
    int reasoningTokens;

    ServeCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws InterruptedException {
        if (engine.equals("llama")) {
            var parsed = spec.commandLine().getParseResult();
            for (String option : SIMULATOR_ONLY) {
                if (parsed.hasMatchedOption(option)) throw new UsageException(option + " applies to --engine sim only");
            }
            boolean namedModel = parsed.hasMatchedOption("--model");
            return new LlamaServe(context).serve(namedModel ? models : List.of(), contextLength, host, port);
        }
        if (!engine.equals("sim")) throw new UsageException("--engine must be 'sim' or 'llama' (got '" + engine + "')");
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
                .host(host)
                .port(port)
                .timeToFirstToken(millis(ttftMillis, "--ttft-ms"))
                .interTokenDelay(millis(interTokenDelayMillis, "--inter-token-delay-ms"))
                .prefillPerPromptToken(millis(prefillMicrosPerToken / 1000.0, "--prefill-us-per-token"))
                .modelIds(models)
                .acceptAnyModel(!strictModel);
        if (Tokenizers.builtInLlama2Available()) {
            builder.promptTokenCounter(Tokenizers.builtInLlama2());
        }
        if (apiKeyFile != null) {
            builder.apiKey(ApiKeyFile.read(apiKeyFile));
        }
        try {
            return builder.tokensPerChunk(tokensPerChunk).maxConcurrentSequences(maxConcurrentSequences)
                    .faultPlan(faultPlan())
                    .earlyStop(stopProbability == 0 ? EarlyStop.none() : EarlyStop.probability(stopProbability, faultSeed))
                    .reasoningTokens(reasoningTokens)
                    .build();
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    private FaultPlan faultPlan() {
        if (faultRate == 0) {
            if (faultKinds != null) {
                throw new UsageException("--fault-kinds needs --fault-rate above 0");
            }
            return FaultPlan.none();
        }
        Map<FaultKind, Double> weights = new EnumMap<>(FaultKind.class);
        if (faultKinds == null) {
            for (FaultKind kind : FaultKind.values()) {
                weights.put(kind, 1.0);
            }
            weights.remove(FaultKind.NONE);
        } else {
            for (String name : faultKinds) {
                try {
                    weights.put(FaultKind.fromHeaderValue(name), 1.0);
                } catch (IllegalArgumentException e) {
                    throw new UsageException("--fault-kinds: " + e.getMessage().replace(FaultKind.HEADER, "kind"));
                }
            }
        }
        return FaultPlan.random(faultRate, weights, faultSeed).withStallDuration(Duration.ofMillis(stallMillis));
    }

    private static Duration millis(double value, String option) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new UsageException(option + " (" + value + ") must be >= 0");
        }
        return Duration.ofNanos(Math.round(value * 1_000_000.0));
    }
}
