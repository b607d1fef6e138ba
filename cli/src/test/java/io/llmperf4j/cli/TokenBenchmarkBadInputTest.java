package io.llmperf4j.cli;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** Bad input: one clear line on stderr, a non-zero exit, no stack trace, nothing on stdout. */
class TokenBenchmarkBadInputTest {
    private static final Map<String, String> ENV =
            Map.of("OPENAI_API_BASE", "http://127.0.0.1:9/v1", "OPENAI_API_KEY", "k");

    static Stream<Arguments> badInputs() {
        int closedPort = ClosedPort.find();
        Map<String, String> unreachable = ClosedPort.env(closedPort);
        return Stream.of(
                Arguments.of(Map.of("OPENAI_API_BASE", "http://127.0.0.1:9/v1"), args(), 2, "OPENAI_API_KEY is not set"),
                Arguments.of(Map.of("OPENAI_API_BASE", " ", "OPENAI_API_KEY", "k"), args(), 2, "OPENAI_API_BASE is set but empty"),
                Arguments.of(Map.of("OPENAI_API_BASE", "localhost:8000/v1", "OPENAI_API_KEY", "k"), args(), 2, "http://"),
                Arguments.of(ENV, args("--additional-sampling-params", "{temperature: 1"), 2, "not valid JSON"),
                Arguments.of(ENV, args("--additional-sampling-params", "[1, 2]"), 2, "must be a JSON object"),
                Arguments.of(ENV, args("--num-concurrent-requests", "0"), 2, "--num-concurrent-requests (0) must be >= 1"),
                Arguments.of(ENV, args("--max-num-completed-requests", "-5"), 2, "--max-num-completed-requests (-5) must be >= 1"),
                Arguments.of(ENV, args("--timeout", "0"), 2, "--timeout (0) must be >= 1"),
                Arguments.of(ENV, args("--mean-input-tokens", "-1"), 2, "--mean-input-tokens (-1) must be >= 1"),
                Arguments.of(ENV, args("--stddev-output-tokens", "-3"), 2, "--stddev-output-tokens (-3) must be >= 0"),
                Arguments.of(ENV, args("--mean-input-tokens", "many"), 2, "--mean-input-tokens"),
                Arguments.of(ENV, args("--llm-api", "sagemaker"), 2, "--llm-api sagemaker is not supported yet"),
                Arguments.of(ENV, args("--llm-api", "embeddings", "--no-stream"), 2, "--no-stream applies to"),
                Arguments.of(ENV, args("--llm-api", "embeddings", "--slo", "e2e_p99<=1s"), 2,
                        "--slo does not apply with --llm-api embeddings: its requests have no TTFT, TPOT or output "
                                + "tokens to judge"),
                Arguments.of(ENV, args("--no-stream", "--slo", "ttft_p90<=1s,tpot_p90<=50ms"), 2,
                        "--slo tpot_p90<=50ms cannot be judged with --no-stream"),
                Arguments.of(ENV, args("--no-stream", "--slo", "ttft=1s,tpot=50"), 2,
                        "--slo tpot=50ms cannot be judged with --no-stream"),
                Arguments.of(ENV, args("--no-stream", "--slo", "itl<=20ms@90%"), 2,
                        "--slo itl<=20ms@90% cannot be judged with --no-stream"),
                Arguments.of(ENV, args("--embedding-batch-size", "2"), 2, "--embedding-batch-size applies to"),
                Arguments.of(ENV, args("--llm-api", "embeddings", "--embedding-batch-size", "0"), 2,
                        "--embedding-batch-size (0) must be >= 1"),
                Arguments.of(ENV, args("--llm-api", "bogus"), 2, "unknown --llm-api 'bogus'"),
                Arguments.of(ENV, args("--metadata", "a=1,b"), 2, "--metadata item 'b'"),
                Arguments.of(ENV, args("--prompt-mode", "fuzzy"), 2, "--prompt-mode"),
                Arguments.of(ENV, args("--corpus", "/no/such/corpus.txt"), 2, "/no/such/corpus.txt"),
                Arguments.of(ENV, args("--no-such-flag"), 2, "--no-such-flag"),
                Arguments.of(ENV, args("--tokenizer", "/missing/file"), 2, "--tokenizer: /missing/file does not exist"),
                Arguments.of(ENV, args("--request-timeout", "0"), 2, "--request-timeout: expected seconds above 0, got 0.0"),
                Arguments.of(ENV, args("--idle-timeout", "0"), 2, "--idle-timeout: expected seconds above 0, got 0.0"),
                Arguments.of(ENV, args("--input-lengths", "fixed:100", "--mean-input-tokens", "300"), 2,
                        "--input-lengths and --mean-input-tokens both set the lengths"),
                Arguments.of(ENV, args("--output-lengths", "fixed:10", "--stddev-output-tokens", "0"), 2,
                        "--output-lengths and --stddev-output-tokens both set the lengths"),
                Arguments.of(ENV, args("--connect-timeout", "-1"), 2,
                        "--connect-timeout: expected seconds above 0, got -1.0"),
                Arguments.of(ENV, args("--insecure", "--ca-cert", "/etc/hostname"), 2, "--insecure and --ca-cert"),
                Arguments.of(ENV, List.of("token-benchmark"), 2, "--model is required"),
                Arguments.of(ENV, args("--header", "X-Team: a\r\nX-Injected: b"), 2,
                        "--header X-Team: the value holds a line break or NUL"),
                // OPENAI_API_BASE set, anthropic's unset: a real server was meant, not the embedded simulator
                Arguments.of(ENV, args("--llm-api", "anthropic"), 2, "--llm-api anthropic reads ANTHROPIC_API_BASE, "
                        + "which is not set, while OPENAI_API_BASE is"),
                Arguments.of(unreachable, args(), 1, "cannot reach 127.0.0.1:" + closedPort));
    }

    private static List<String> args(String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m",
                "--max-num-completed-requests", "2", "--mean-input-tokens", "60"));
        args.addAll(List.of(extra));
        return args;
    }

    @ParameterizedTest
    @MethodSource("badInputs")
    void badInputIsOneClearLine(Map<String, String> env, List<String> args, int exitCode, String expected) {
        CliRun.of(env, args.toArray(String[]::new)).assertOneErrorLine(exitCode, expected);
    }
}
