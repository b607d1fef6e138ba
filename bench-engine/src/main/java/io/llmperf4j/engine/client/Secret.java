package io.llmperf4j.engine.client;

import java.security.MessageDigest;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A credential (the API key) whose {@code toString} never shows the value, so configs, records and logs can be
 * printed safely. Only {@link #reveal()} gives the value, for the one header that needs it.
 */
public final class Secret {

    private static final Secret NONE = new Secret("");

    private final String value;

    private Secret(String value) {
        this.value = value;
    }

    /** A secret holding {@code value}; null or empty means no key. */
    public static Secret of(String value) {
        return value == null || value.isEmpty() ? NONE : new Secret(value);
    }

    public static Secret none() {
        return NONE;
    }

    public boolean isEmpty() {
        return value.isEmpty();
    }

    /** The value; call only to put it on the wire. */
    public String reveal() {
        return value;
    }

    @Override
    public String toString() {
        return isEmpty() ? "Secret[empty]" : "Secret[redacted]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Secret s && MessageDigest.isEqual(
                value.getBytes(StandardCharsets.UTF_8), s.value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public int hashCode() {
        return Objects.hash(Secret.class, value.length());
    }
}
