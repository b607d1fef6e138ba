package io.llmperf4j.llama;

import de.kherud.llama.InferenceParameters;
import de.kherud.llama.LlamaIterator;
import de.kherud.llama.LlamaModel;
import de.kherud.llama.LlamaOutput;
import de.kherud.llama.ModelParameters;
import de.kherud.llama.Pair;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * llama.cpp in the JVM (de.kherud:llama) with one decoding thread: llama.cpp runs one sequence with one thread
 * (more threads collapse decode speed on 2-core machines), and requests wait in a FIFO queue for it.
 *
 * <h2>Token accounting</h2>
 * Prompt tokens are counted by llama.cpp's own tokenizer on the exact prompt it is given, plus the BOS it adds.
 * End of sequence is ignored, as benchmarks ask ("Don't generate eos tokens"), so llama.cpp generates exactly the
 * requested number of tokens; that is the completion count (de.kherud:llama 4.2.0 streams text only, not the
 * count llama.cpp keeps). A generation ended by a stop string counts llama.cpp's tokens of its text through the
 * stop string, as vLLM counts the stop string's tokens.
 *
 * <h2>Text</h2>
 * llama.cpp holds back the bytes of a character that is split over several tokens (for example an emoji spelled
 * as four byte tokens) until the character is complete, so every piece of text handed on is whole characters.
 * When the token budget ends inside such a character, its first bytes are never sent, as with llama.cpp's server.
 *
 * <p>llama.cpp keeps a native thread alive after {@link #close()}: a command line that used an engine must end
 * with {@code System.exit}.
 */
public final class LlamaEngine implements AutoCloseable {
    private final LlamaModel model;
    private final String modelPath;
    private final int contextLength;
    private final ExecutorService decoder;

    private LlamaEngine(LlamaModel model, String modelPath, int contextLength) {
        this.model = model;
        this.modelPath = modelPath;
        this.contextLength = contextLength;
        this.decoder = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "llmperf4j-llama-decode");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Loads a GGUF model for one sequence at a time with one CPU thread.
     *
     * @param contextLength tokens of context (prompt plus completion) the engine keeps
     * @throws IllegalArgumentException when the file is missing or llama.cpp cannot load it
     * @throws IllegalStateException when llama.cpp's native library cannot be loaded on this OS / architecture
     *                               ({@link NativeLibrary})
     * @throws java.io.UncheckedIOException when no private folder for llama.cpp's native library can be created
     *                                      (see {@link NativeLibraryFolder})
     */
    public static LlamaEngine load(Path gguf, int contextLength) {
        if (!Files.isRegularFile(gguf)) throw new IllegalArgumentException("no model file " + gguf.toAbsolutePath());
        NativeLibrary.load();
        ModelParameters parameters = new ModelParameters()
                .setModel(gguf.toAbsolutePath().toString())
                .setThreads(1)
                .setThreadsBatch(1)
                .setParallel(1)
                .setCtxSize(contextLength)
                .disableLog(); // llama.cpp logs every request to stderr
        try {
            return new LlamaEngine(new LlamaModel(parameters), gguf.toAbsolutePath().toString(), contextLength);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("llama.cpp cannot load " + gguf.toAbsolutePath() + ": " + e.getMessage(), e);
        }
    }

    /** The model file. */
    public String modelPath() {
        return modelPath;
    }

    public int contextLength() {
        return contextLength;
    }

    /** llama.cpp's token ids of {@code text}, without BOS ({@code "Hello world"} is {@code [15043, 3186]}). */
    public int[] tokenize(String text) {
        return model.encode(text);
    }

    /** Tokens llama.cpp evaluates for {@code prompt}: its tokens plus the BOS it adds (Llama-family models do). */
    public int countPromptTokens(String prompt) {
        return model.encode(prompt).length + 1;
    }

    /**
     * The prompt the model's chat template makes of a system message (null or empty: none, as de.kherud:llama
     * drops an empty one) and the user / assistant turns (role, content pairs).
     */
    public String renderChat(String system, List<Pair<String, String>> turns) {
        return model.applyTemplate(new InferenceParameters("").setMessages(system, turns));
    }

    /**
     * Queues a generation; the decoding thread runs queued generations one at a time, oldest first. The prompt is
     * rendered and counted on that thread too, so a client's time to first token includes tokenization, as with a
     * real server.
     *
     * @param cancelled polled between tokens: true stops the generation early (the client left)
     */
    public void submit(Generation generation, Listener listener, BooleanSupplier cancelled) {
        try {
            decoder.execute(() -> run(generation, listener, cancelled));
        } catch (RejectedExecutionException e) {
            listener.onError("the engine is shut down", false);
        }
    }

    private void run(Generation generation, Listener listener, BooleanSupplier cancelled) {
        try {
            if (cancelled.getAsBoolean()) return;
            String prompt = generation.turns() == null ? generation.prompt()
                    : renderChat(generation.system(), generation.turns());
            int promptTokens = countPromptTokens(prompt);
            int requested = promptTokens + generation.maxTokens();
            if (requested > contextLength) {
                listener.onError("This model's maximum context length is " + contextLength + " tokens. However, you "
                        + "requested " + requested + " tokens (" + promptTokens + " in the prompt, "
                        + generation.maxTokens() + " in the completion).", true);
                return;
            }
            listener.onStart(promptTokens);
            StopText text = new StopText(generation.stop());
            LlamaIterator tokens = model.generate(generation.toParameters(prompt)).iterator();
            while (tokens.hasNext()) {
                if (cancelled.getAsBoolean()) {
                    tokens.cancel();
                    return;
                }
                LlamaOutput output = tokens.next();
                String ready = text.accept(output.text);
                if (!ready.isEmpty()) listener.onText(ready);
                if (text.stopped()) {
                    tokens.cancel();
                    // the binding streams text, not token counts: the tokens of the text through the stop string
                    listener.onEnd(promptTokens, Math.min(generation.maxTokens(),
                            model.encode(text.generatedThroughStop()).length), true);
                    return;
                }
            }
            String rest = text.rest();
            if (!rest.isEmpty()) listener.onText(rest);
            listener.onEnd(promptTokens, generation.maxTokens(), false);
        } catch (RuntimeException e) {
            listener.onError("llama.cpp failed: " + e.getMessage(), false);
        }
    }

    /** What a generation reports, always on the decoding thread, in this order: start, text..., end; or error. */
    public interface Listener {
        /** The prompt is counted and decoding begins. */
        void onStart(int promptTokens);

        /** New text: whole characters, never empty. */
        void onText(String text);

        /**
         * The generation is complete: all {@code max_tokens} tokens, or ({@code stopped}) fewer, up to a stop string.
         */
        void onEnd(int promptTokens, int completionTokens, boolean stopped);

        /** The request could not be served; {@code badRequest} when the request itself is at fault. */
        void onError(String message, boolean badRequest);
    }

    /** Stops the decoding thread (a running generation ends first) and frees the model. */
    @Override
    public void close() {
        decoder.shutdownNow();
        try {
            decoder.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        model.close();
    }

    /**
     * One generation request as llama.cpp takes it.
     *
     * @param prompt      the prompt text of a text completion, or null for a chat
     * @param system      a chat's system message, or null
     * @param turns       a chat's user and assistant (role, content) pairs, rendered through the model's chat
     *                    template; or null for a text completion
     * @param maxTokens   tokens to generate, exactly
     * @param temperature sampling temperature, or null for llama.cpp's default
     * @param topP        nucleus sampling, or null
     * @param seed        sampling seed, or null
     * @param stop        stop strings: the text ends before the first one generated ({@link StopText}); or empty
     */
    public record Generation(String prompt, String system, List<Pair<String, String>> turns, int maxTokens,
                             Float temperature, Float topP, Integer seed, List<String> stop) {
        public Generation {
            if ((prompt == null) == (turns == null)) {
                throw new IllegalArgumentException("a generation has a prompt or chat turns, not both");
            }
            if (turns != null) turns = List.copyOf(turns);
            stop = stop == null ? List.of() : List.copyOf(stop);
        }

        InferenceParameters toParameters(String prompt) {
            InferenceParameters parameters = new InferenceParameters(prompt)
                    .setNPredict(maxTokens)
                    .setIgnoreEos(true);
            if (temperature != null) parameters.setTemperature(temperature);
            if (topP != null) parameters.setTopP(topP);
            if (seed != null) parameters.setSeed(seed);
            return parameters;
        }
    }
}
