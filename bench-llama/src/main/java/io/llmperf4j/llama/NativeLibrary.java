package io.llmperf4j.llama;

import java.io.PrintStream;

/**
 * Loads llama.cpp's native library (de.kherud:llama's {@code LlamaModel} class loads it when first initialized)
 * once per JVM, in a private folder ({@link NativeLibraryFolder}), and turns a failure into one sentence. The
 * binding's loader prints "Extracted 'libjllama.so' to ..." on stdout, which belongs to the command's output
 * (a script reads it): that line is sent to stderr instead.
 */
final class NativeLibrary {
    /** The platforms de.kherud:llama 4.2.0 bundles a library for. */
    static final String BUNDLED_PLATFORMS = "Linux x86_64 and aarch64, macOS x86_64 and aarch64, Windows x86 and "
            + "x86_64, Android aarch64";
    private static final String MODEL_CLASS = "de.kherud.llama.LlamaModel";

    private static boolean loaded;

    private NativeLibrary() {
    }

    /**
     * Loads the library unless loaded already.
     *
     * @throws IllegalStateException when the library cannot be loaded on this OS / architecture (the binding has
     *                               none for it, or it does not link)
     * @throws java.io.UncheckedIOException when no private folder for it can be created
     */
    static synchronized void load() {
        if (loaded) return;
        NativeLibraryFolder.prepare(); // before the loader runs: it deletes files in its folder
        PrintStream stdout = System.out;
        System.setOut(System.err);
        try {
            Class.forName(MODEL_CLASS, true, NativeLibrary.class.getClassLoader());
            loaded = true;
        } catch (LinkageError | ClassNotFoundException e) {
            // UnsatisfiedLinkError the first time; NoClassDefFoundError once the class failed to initialize
            throw new IllegalStateException(unavailable(e), e);
        } finally {
            System.setOut(stdout);
        }
    }

    /** The one line a user reads when the library cannot be loaded. */
    static String unavailable(Throwable cause) {
        return "llama.cpp's native library cannot be loaded on " + System.getProperty("os.name") + " "
                + System.getProperty("os.arch") + " (de.kherud:llama bundles it for " + BUNDLED_PLATFORMS
                + "); --engine sim still works. Cause: " + cause;
    }
}
