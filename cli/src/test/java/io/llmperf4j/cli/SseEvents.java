package io.llmperf4j.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** Server-sent events as the cli tests' own servers write them: one event, flushed at once. */
final class SseEvents {
    private SseEvents() {
    }

    /** {@code data: DATA} and the blank line. */
    static void write(OutputStream out, String data) throws IOException {
        write(out, null, data);
    }

    /** {@code event: NAME} (when named), {@code data: DATA} and the blank line. */
    static void write(OutputStream out, String name, String data) throws IOException {
        out.write(((name == null ? "" : "event: " + name + "\n") + "data: " + data + "\n\n")
                .getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
