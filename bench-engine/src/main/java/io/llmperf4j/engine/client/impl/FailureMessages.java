package io.llmperf4j.engine.client.impl;

import io.netty.channel.ConnectTimeoutException;

import javax.net.ssl.SSLException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;

/** Wording of failure messages, in one place. Messages name host:port, never credentials. */
public final class FailureMessages {

    static final int EXCERPT_CHARS = 120;

    private FailureMessages() {
    }

    /** Why a connection could not be made. */
    public static String connectFailure(String hostAndPort, Throwable cause, long connectTimeoutMillis) {
        Throwable root = rootCause(cause);
        if (cause instanceof ConnectTimeoutException || root instanceof ConnectTimeoutException) {
            return "connection to " + hostAndPort + " timed out after " + connectTimeoutMillis + " ms";
        }
        if (root instanceof UnknownHostException) {
            return "cannot resolve the host of " + hostAndPort + ": " + describe(root);
        }
        if (root instanceof SSLException || cause instanceof SSLException) {
            return "TLS handshake with " + hostAndPort + " failed: " + describe(root);
        }
        return "connection to " + hostAndPort + " failed: " + describe(root);
    }

    /** The class and message of a throwable, short. */
    public static String describe(Throwable t) {
        String message = t.getMessage();
        return message == null || message.isBlank() ? t.getClass().getSimpleName() : message;
    }

    public static Throwable rootCause(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        return root;
    }

    /** The first {@value #EXCERPT_CHARS} characters of UTF-8 bytes, control characters escaped, on one line. */
    public static String excerpt(byte[] data) {
        int take = Math.min(data.length, EXCERPT_CHARS * 4);
        String text = new String(data, 0, take, StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder();
        int i = 0;
        for (; i < text.length() && out.length() < EXCERPT_CHARS; i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> out.append(c < 0x20 ? '?' : c);
            }
        }
        if (i < text.length() || take < data.length) out.append("...");
        return out.toString();
    }
}
