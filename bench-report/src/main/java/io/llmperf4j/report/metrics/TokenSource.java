package io.llmperf4j.report.metrics;

/** Where a request's token count came from. Every count llmperf4j reports names its source. */
public enum TokenSource {
    /** The server's {@code usage} object ({@code completion_tokens} or {@code prompt_tokens}). */
    SERVER_USAGE("server_usage"),
    /**
     * The client side: for output, the client tokenizer's count of the generated text minus the special tokens
     * the tokenizer adds ({@link TokenCounting#clientSpecialTokens()}); for input, the workload's reported count.
     */
    CLIENT_TOKENIZER("client_tokenizer"),
    /** No count at all (no usage and never counted by the client); metrics that need one are absent. */
    NONE("none");

    private final String key;

    TokenSource(String key) {
        this.key = key;
    }

    /** The JSON key of this source, e.g. {@code "server_usage"}. */
    public String key() {
        return key;
    }
}
