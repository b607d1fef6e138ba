package io.llmperf4j.llama;

import java.nio.file.Path;

/**
 * Run in a fresh JVM by {@link NativeLibraryCanaryTest}: loads a model and starts and stops the server as
 * {@code serve --engine llama} does, then prints the folder llama.cpp's native library went to (the one line on
 * stdout).
 */
public final class ServeAndStop {
    private ServeAndStop() {
    }

    /** {@code args[0]}: the GGUF model file. Exits 3, saying why on stderr, when the native library cannot load. */
    public static void main(String[] args) {
        LlamaEngine engine;
        try {
            engine = LlamaEngine.load(Path.of(args[0]), TinyLlamaModel.CONTEXT_LENGTH);
        } catch (IllegalStateException e) {
            System.err.println("refused: " + e.getMessage());
            System.exit(3);
            return;
        }
        LlamaServer server = LlamaServer.start(engine, TinyLlamaFixture.MODEL_ID, "127.0.0.1", 0);
        System.out.println("native folder: " + System.getProperty(NativeLibraryFolder.PROPERTY));
        server.close();
        engine.close();
        System.exit(0); // llama.cpp keeps a native thread alive
    }
}
