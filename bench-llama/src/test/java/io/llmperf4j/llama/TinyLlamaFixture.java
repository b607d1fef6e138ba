package io.llmperf4j.llama;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * One llama.cpp engine and server on the generated model, shared by the test classes of this (forked) JVM; the
 * engine's native thread dies with the fork.
 */
final class TinyLlamaFixture {
    static final String MODEL_ID = "tiny-llama";
    private static LlamaEngine engine;
    private static LlamaServer server;

    private TinyLlamaFixture() {
    }

    /** The generated model in the build folder, written by the first test that needs it. */
    static synchronized Path modelFile() {
        try {
            return TinyLlamaModel.writeIfAbsent(Path.of("target", TinyLlamaModel.fileName(TinyLlamaModel.DEFAULT_SEED)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static synchronized LlamaEngine engine() {
        if (engine == null) engine = LlamaEngine.load(modelFile(), TinyLlamaModel.CONTEXT_LENGTH);
        return engine;
    }

    static synchronized LlamaServer server() {
        if (server == null) server = LlamaServer.start(engine(), MODEL_ID, "127.0.0.1", 0);
        return server;
    }
}
