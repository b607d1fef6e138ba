package io.llmperf4j.tokenize.llama;

/**
 * Where the built-in Llama-2 tokenizer comes from and where the build puts it.
 *
 * <p>llmperf counts every token with {@code hf-internal-testing/llama-tokenizer}. No reachable registry ships that
 * tokenizer as a {@code tokenizer.json}, but npm {@code llama-tokenizer-js@1.2.2} (MIT; the vocabulary is Meta's)
 * carries its complete vocabulary and merges. {@link LlamaTokenizerJsConverter} turns them into an equivalent
 * HuggingFace {@code tokenizer.json} at build time and stores it on the classpath under {@link #RESOURCE}.
 */
public final class BuiltInLlama2 {
    public static final String NPM_PACKAGE_SPEC = "llama-tokenizer-js@1.2.2";
    /** The file name {@code npm pack} gives the tarball. */
    public static final String TARBALL_FILE_NAME = "llama-tokenizer-js-1.2.2.tgz";
    /** The registry's {@code dist.integrity} of that version; a tarball with another digest is rejected. */
    public static final String TARBALL_SHA512_BASE64 =
            "Wmth393dc3odWU3IzARJ3r2oIfWgw9GdJ5Gm+hGhfECNO18UHLRqEFSf511jn4E9KcQGzuuKw4Wl08pHAemLAw==";
    /** The tarball entry holding the base64 data. */
    public static final String TARBALL_ENTRY = "package/llama-tokenizer.js";
    /** Classpath location of the derived tokenizer.json. */
    public static final String RESOURCE = "io/llmperf4j/tokenize/llama-2/tokenizer.json";
    /** Human-readable name, used as the tokenizer id in results. */
    public static final String DISPLAY_NAME = "llama-2 (built in)";

    /** Said by the build when it cannot derive the tokenizer, and again by the runtime when it is asked for. */
    public static final String UNAVAILABLE_MESSAGE = "The built-in Llama-2 tokenizer is unavailable: this build of "
            + "llmperf4j could not derive it from npm " + NPM_PACKAGE_SPEC + " (npm was missing or failed when "
            + "bench-tokenize was built). Pass a HuggingFace tokenizer.json with --tokenizer PATH (the file, or a "
            + "folder holding it), or rebuild bench-tokenize with npm on the PATH.";

    private BuiltInLlama2() {
    }
}
