package io.llmperf4j.tokenize;

/**
 * The tokenizer spec {@code server}: token counts are to come from the server's {@code usage} block (requested with
 * {@code stream_options.include_usage}), not from a client-side tokenizer. It cannot encode or count: every such
 * method throws {@link UnsupportedOperationException}. Callers detect it with {@code instanceof} (or
 * {@link Tokenizers#isServerUsageCounting}) and must fail a request, clearly, when the server sends no usage.
 *
 * <p>Workloads still need a tokenizer to build prompts of a given length; use a real one for that.
 */
public final class ServerUsageCounting implements Tokenizer {
    /** The spec that selects it. */
    public static final String SPEC = "server";
    /** Its {@link #id()}, written to results. */
    public static final String ID = "server (usage counts)";
    public static final ServerUsageCounting INSTANCE = new ServerUsageCounting();

    private ServerUsageCounting() {
    }

    @Override
    public long[] encode(String text) {
        throw cannotEncode();
    }

    @Override
    public TokenizedText encodeWithOffsets(String text) {
        throw cannotEncode();
    }

    @Override
    public int countWithoutSpecialTokens(String text) {
        throw cannotEncode();
    }

    @Override
    public int count(String text) {
        throw cannotEncode();
    }

    @Override
    public String decode(long[] ids) {
        throw cannotEncode();
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String toString() {
        return "Tokenizer[" + ID + "]";
    }

    private static UnsupportedOperationException cannotEncode() {
        return new UnsupportedOperationException("The tokenizer 'server' takes token counts from the server's usage "
                + "block and cannot encode text; choose a tokenizer (for example llama-2 or a tokenizer.json) where "
                + "text must be tokenized");
    }
}
