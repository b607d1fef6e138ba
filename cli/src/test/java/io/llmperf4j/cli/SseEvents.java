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

    /**
     * A chat completions stream chunk's JSON with {@code delta} (a JSON object) and {@code finishReason} (a JSON
     * value: {@code null}, {@code "\"stop\""}), to {@link #write}.
     */
    static String chatChunk(String delta, String finishReason) {
        return "{\"id\":\"chatcmpl-test\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                + "\"choices\":[{\"index\":0,\"delta\":" + delta + ",\"finish_reason\":" + finishReason + "}]}";
    }

    /** {@code event: NAME} (when named), {@code data: DATA} and the blank line. */
    static void write(OutputStream out, String name, String data) throws IOException {
        out.write(((name == null ? "" : "event: " + name + "\n") + "data: " + data + "\n\n")
                .getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
