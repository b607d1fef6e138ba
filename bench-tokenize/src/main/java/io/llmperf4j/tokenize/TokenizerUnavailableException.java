package io.llmperf4j.tokenize;

/** A tokenizer cannot be loaded; the message says which one and what the user can do. */
public final class TokenizerUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TokenizerUnavailableException(String message) {
        super(message);
    }

    public TokenizerUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
