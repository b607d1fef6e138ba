package io.llmperf4j.cli;

import io.llmperf4j.llama.LlamaEngine;
import io.llmperf4j.llama.LlamaServer;
import io.llmperf4j.llama.TinyLlamaModel;
import io.llmperf4j.llama.TinyModelFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code serve --engine llama}: the OpenAI-compatible server backed by llama.cpp in this JVM (one decoding thread)
 * and a real GGUF model, or, without one, the generated tiny Llama-2-vocabulary model.
 *
 * <p>llama.cpp leaves a native thread running after its model is closed, so this command relies on
 * {@link Main#main} ending the JVM with {@code System.exit} once it returns.
 */
final class LlamaServe {
    static final String TINY_MODEL_ID = TinyLlamaModel.NAME;

    private final CliContext context;

    LlamaServe(CliContext context) {
        this.context = context;
    }

    /**
     * Serves until the process is interrupted.
     *
     * @param models        empty, or one GGUF file
     * @param contextLength tokens of context per sequence
     */
    int serve(List<String> models, int contextLength, String host, int port) throws InterruptedException {
        if (models.size() > 1) throw new UsageException("--engine llama serves one --model FILE.gguf, got " + models);
        if (contextLength < 16) throw new UsageException("--ctx-size (" + contextLength + ") must be >= 16");
        Path gguf = models.isEmpty() ? tinyModel() : Path.of(models.get(0));
        if (!Files.isRegularFile(gguf)) {
            throw new UsageException("--model " + gguf + ": no such file (with --engine llama, --model names a "
                    + "GGUF model file; leave it out to serve the generated tiny model)");
        }
        String modelId = models.isEmpty() ? TINY_MODEL_ID : modelId(gguf);
        LlamaEngine engine;
        try {
            engine = LlamaEngine.load(gguf, contextLength);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        LlamaServer server;
        try {
            server = LlamaServer.start(engine, modelId, host, port);
        } catch (UncheckedIOException e) {
            engine.close();
            throw e;
        }
        context.err().println("llmperf4j llama.cpp server listening on " + server.baseUrl() + " (model '" + modelId
                + "' from " + gguf.toAbsolutePath() + ", context " + contextLength + ", one decoding thread); "
                + "Ctrl-C to stop");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            engine.close();
        }, "llmperf4j-serve-shutdown"));
        server.awaitClose();
        return ExitCodes.OK;
    }

    /**
     * The generated model (about 17 MB), written once per user into a folder of the temporary folder only this user
     * can write ({@link TinyModelFile}).
     */
    private Path tinyModel() {
        Path tempRoot = Path.of(System.getProperty("java.io.tmpdir"));
        Path file = null;
        try {
            file = TinyModelFile.privatePath(tempRoot, System.getProperty("user.name", "user"));
            if (!Files.isRegularFile(file)) context.err().println("llmperf4j: writing the tiny model to " + file);
            return TinyLlamaModel.writeIfAbsent(file);
        } catch (IOException e) {
            // without a file, the message names the temporary folder already
            throw new UncheckedIOException("cannot write the tiny model" + (file == null ? "" : " to " + file) + ": "
                    + e.getMessage(), e);
        }
    }

    /** "llama-2-7b.Q4_K_M.gguf" serves as "llama-2-7b.Q4_K_M". */
    private static String modelId(Path gguf) {
        String name = gguf.getFileName().toString();
        return name.toLowerCase(Locale.ROOT).endsWith(".gguf") ? name.substring(0, name.length() - 5) : name;
    }
}
