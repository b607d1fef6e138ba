package io.llmperf4j.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A Mooncake trace mixing sessions and requests without one: sessions a (0 ms) and b (100 ms), 2 turns each, their
 * second turns 50 ms after their first replies; single requests at 50, 150 and 250 ms: 5 arrivals, 7 requests.
 */
final class MixedTrace {
    private MixedTrace() {
    }

    /** Writes it as {@code t.jsonl} in {@code dir}. */
    static Path write(Path dir) throws IOException {
        return Files.writeString(dir.resolve("t.jsonl"), """
                {"timestamp": 0, "input_length": 100, "output_length": 5, "session_id": "a"}
                {"timestamp": 50, "input_length": 100, "output_length": 5}
                {"timestamp": 100, "input_length": 100, "output_length": 5, "session_id": "b"}
                {"timestamp": 150, "input_length": 100, "output_length": 5}
                {"timestamp": 200, "input_length": 100, "output_length": 5, "session_id": "a", "delay": 50}
                {"timestamp": 250, "input_length": 100, "output_length": 5}
                {"timestamp": 300, "input_length": 100, "output_length": 5, "session_id": "b", "delay": 50}
                """);
    }
}
