package io.llmperf4j.servermetrics;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Real-looking {@code /metrics} bodies in src/test/resources/expositions. */
public final class Fixtures {

    private Fixtures() {
    }

    public static String exposition(String name) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/expositions/" + name)) {
            if (in == null) throw new IllegalArgumentException("no fixture " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
