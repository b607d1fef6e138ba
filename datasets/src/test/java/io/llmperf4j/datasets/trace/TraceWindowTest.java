package io.llmperf4j.datasets.trace;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@code --trace-start} and {@code --trace-duration}: a window from the middle of a trace, sent from 0. */
class TraceWindowTest {

    private static Trace load(Path dir, String text) throws IOException {
        return Trace.load("mooncake:" + Files.writeString(dir.resolve("t.jsonl"), text));
    }

    private static List<Long> times(Trace t) {
        return t.requests().stream().map(TraceRequest::timestampMs).toList();
    }

    private static List<Integer> lines(Trace t) {
        return t.requests().stream().map(TraceRequest::line).toList();
    }

    /** Requests at 0, 1, 2.5, 3, 4.2 and 6 s. */
    private static final String SIX = """
            {"timestamp": 10000, "input_length": 10, "output_length": 2}
            {"timestamp": 11000, "input_length": 10, "output_length": 2}
            {"timestamp": 12500, "input_length": 10, "output_length": 2}
            {"timestamp": 13000, "input_length": 10, "output_length": 2}
            {"timestamp": 14200, "input_length": 10, "output_length": 2}
            {"timestamp": 16000, "input_length": 10, "output_length": 2}
            """;

    @Test
    void aWindowFromTheMiddleIsSentFromItsFirstRequest(@TempDir Path dir) throws IOException {
        Trace trace = load(dir, SIX);
        // [2 s, 4.5 s): the requests at 2.5, 3 and 4.2 s, sent at 0, 0.5 and 1.7 s
        Trace window = trace.scaled(1, Duration.ofSeconds(2), Duration.ofMillis(2500));
        assertEquals(List.of(3, 4, 5), lines(window));
        assertEquals(List.of(0L, 500L, 1700L), times(window));
        // to the end without a duration; a start on a request keeps it
        assertEquals(List.of(4, 5, 6), lines(trace.scaled(1, Duration.ofMillis(3000), null)));
        // sped up 2x the requests are at 0, 0.5, 1.25, 1.5, 2.1, 3 s: both flags count in that time
        Trace fast = trace.scaled(2, Duration.ofMillis(1250), Duration.ofSeconds(1));
        assertEquals(List.of(3, 4, 5), lines(fast));
        assertEquals(List.of(0L, 250L, 850L), times(fast));
        // no start: as before, the first --trace-duration seconds
        assertEquals(times(trace.scaled(1, Duration.ofSeconds(3))), times(trace.scaled(1, null,
                Duration.ofSeconds(3))));
    }

    @Test
    void aSessionGoesWholeWithItsFirstTurn(@TempDir Path dir) throws IOException {
        Trace trace = load(dir, """
                {"timestamp": 0, "input_length": 10, "output_length": 2, "session_id": "a"}
                {"timestamp": 1000, "input_length": 10, "output_length": 2, "session_id": "b"}
                {"timestamp": 2000, "input_length": 10, "output_length": 2, "session_id": "a", "delay": 100}
                {"timestamp": 3000, "input_length": 10, "output_length": 2, "session_id": "b", "delay": 100}
                {"timestamp": 3500, "input_length": 10, "output_length": 2, "session_id": "c"}
                """);
        // from 1.5 s: a and b started before and are left out (their turns at 2 and 3 s too); c starts at 0
        assertEquals(List.of(5), lines(trace.scaled(1, Duration.ofMillis(1500), null)));
        // from 0.5 s for 1 s: b starts inside and keeps its later turn at 3 s (2 s after its start)
        Trace b = trace.scaled(1, Duration.ofMillis(500), Duration.ofSeconds(1));
        assertEquals(List.of(2, 4), lines(b));
        assertEquals(List.of(0L, 2000L), times(b));
    }

    @Test
    void badStartsAreRefusedInOneLine(@TempDir Path dir) throws IOException {
        Trace trace = load(dir, SIX);
        Path file = dir.resolve("t.jsonl");
        assertEquals("--trace-start must be >= 0 (got -1)",
                assertThrows(IllegalArgumentException.class,
                        () -> trace.scaled(1, Duration.ofSeconds(-1), null)).getMessage());
        assertEquals("--trace-start 6.5 is beyond the end of mooncake:" + file + ", which is 6 s long (first to "
                        + "last request)",
                assertThrows(IllegalArgumentException.class,
                        () -> trace.scaled(1, Duration.ofMillis(6500), null)).getMessage());
        assertEquals("--trace-start 3.5 is beyond the end of mooncake:" + file + ", which is 3 s long (first to "
                        + "last request, after --trace-speedup 2)",
                assertThrows(IllegalArgumentException.class,
                        () -> trace.scaled(2, Duration.ofMillis(3500), null)).getMessage());
        assertEquals("--trace-start 3.1 with --trace-duration 1 keeps no request of " + file
                        + ": no request starts in that window (a session counts at its first turn)",
                assertThrows(IllegalArgumentException.class,
                        () -> trace.scaled(1, Duration.ofMillis(3100), Duration.ofSeconds(1))).getMessage());
    }
}
