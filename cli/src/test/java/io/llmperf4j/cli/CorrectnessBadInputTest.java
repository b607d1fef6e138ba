package io.llmperf4j.cli;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** Bad input to correctness: the token benchmark's checks and messages (one line, no stack trace, no stdout). */
class CorrectnessBadInputTest {
    private static final Map<String, String> ENV =
            Map.of("OPENAI_API_BASE", "http://127.0.0.1:9/v1", "OPENAI_API_KEY", "k");

    static Stream<Arguments> badInputs() {
        int closedPort = ClosedPort.find();
        Map<String, String> unreachable = ClosedPort.env(closedPort);
        return Stream.of(
                Arguments.of(Map.of("OPENAI_API_BASE", "http://127.0.0.1:9/v1"), args(), 2, "OPENAI_API_KEY is not set"),
                Arguments.of(Map.of("OPENAI_API_BASE", "", "OPENAI_API_KEY", "k"), args(), 2, "OPENAI_API_BASE is set but empty"),
                Arguments.of(ENV, args("--max-num-completed-requests", "0"), 2, "--max-num-completed-requests (0) must be >= 1"),
                Arguments.of(ENV, args("--num-concurrent-requests", "-1"), 2, "--num-concurrent-requests (-1) must be >= 1"),
                Arguments.of(ENV, args("--timeout", "0"), 2, "--timeout (0) must be >= 1"),
                Arguments.of(ENV, args("--additional-sampling-params", "[1]"), 2, "must be a JSON object"),
                Arguments.of(ENV, args("--additional-sampling-params", "{\"a\": "), 2, "not valid JSON"),
                Arguments.of(ENV, args("--metadata", "a"), 2, "--metadata item 'a'"),
                Arguments.of(ENV, args("--llm-api", "litellm"), 2, "--llm-api litellm is not supported yet"),
                Arguments.of(ENV, args("--seed", "x"), 2, "--seed"),
                Arguments.of(ENV, List.of("correctness"), 2, "--model is required"),
                Arguments.of(unreachable, args(), 1, "cannot reach 127.0.0.1:" + closedPort));
    }

    private static List<String> args(String... extra) {
        List<String> args = new ArrayList<>(List.of("correctness", "--model", "m", "--max-num-completed-requests", "2"));
        args.addAll(List.of(extra));
        return args;
    }

    @ParameterizedTest
    @MethodSource("badInputs")
    void badInputIsOneClearLine(Map<String, String> env, List<String> args, int exitCode, String expected) {
        CliRun.of(env, args.toArray(String[]::new)).assertOneErrorLine(exitCode, expected);
    }
}
