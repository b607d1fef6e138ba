package io.llmperf4j.cli;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Acceptance (f): bad load flags are one clear line on stderr and exit 2, before anything is started or sent (the
 * endpoint here is a closed port: reaching for it would be exit 1).
 */
class LoadBadInputTest {
    private static final Map<String, String> ENV =
            Map.of("OPENAI_API_BASE", "http://127.0.0.1:9/v1", "OPENAI_API_KEY", "k");

    static Stream<Arguments> badInputs() {
        return Stream.of(
                Arguments.of(args("--request-rate", "-1"), "--request-rate (-1) must be > 0"),
                Arguments.of(args("--request-rate", "0"), "--request-rate (0) must be > 0"),
                Arguments.of(args("--request-rate", "NaN"), "--request-rate (NaN) must be a finite number"),
                Arguments.of(args("--request-rate", "fast"), "--request-rate"),
                Arguments.of(args("--concurrency-sweep", ""), "--concurrency-sweep needs at least one level"),
                Arguments.of(args("--concurrency-sweep", "1,,4"), "--concurrency-sweep '1,,4' has an empty item"),
                Arguments.of(args("--concurrency-sweep", "1,x"), "--concurrency-sweep: 'x' is not a whole number"),
                Arguments.of(args("--concurrency-sweep", "0,2"), "every concurrency must be >= 1 (got 0)"),
                Arguments.of(args("--concurrency-sweep", "4,2"), "levels must increase (got 2 after 4)"),
                Arguments.of(args("--rate-sweep", " "), "--rate-sweep needs at least one level"),
                Arguments.of(args("--rate-sweep", "1,-2"), "every rate must be > 0 and finite (got -2)"),
                Arguments.of(args("--request-rate", "5", "--arrival", "bursty"),
                        "unknown --arrival 'bursty'; use constant, poisson or gamma"),
                Arguments.of(args("--request-rate", "5", "--arrival", "gamma"), "--arrival gamma needs --burstiness"),
                Arguments.of(args("--request-rate", "5", "--burstiness", "0.5"), "--burstiness needs --arrival gamma"),
                Arguments.of(args("--request-rate", "5", "--arrival", "gamma", "--burstiness", "-1"),
                        "--burstiness (-1) must be > 0"),
                Arguments.of(args("--arrival", "poisson"), "--arrival applies to an open loop"),
                Arguments.of(args("--request-rate", "5", "--concurrency-sweep", "1,2"),
                        "--request-rate, --rate-sweep and --concurrency-sweep are alternatives"),
                Arguments.of(args("--max-concurrency", "4"), "--max-concurrency applies to an open loop"),
                Arguments.of(args("--request-rate", "5", "--max-concurrency", "0"), "--max-concurrency (0) must be >= 1"),
                Arguments.of(args("--duration", "10"), "--duration applies to an open loop"),
                Arguments.of(args("--request-rate", "5", "--duration", "0"), "--duration (0) must be > 0"),
                Arguments.of(args("--request-rate", "5", "--duration", "60", "--timeout", "30"),
                        "--timeout (30) must be longer than --duration (60)"),
                Arguments.of(args("--sleep-between", "1"), "--sleep-between applies between sweep levels"),
                Arguments.of(args("--concurrency-sweep", "1,2", "--sleep-between", "-1"),
                        "--sleep-between (-1) must be >= 0"),
                Arguments.of(args("--saturation-gain", "5"), "--saturation-gain applies to a sweep"),
                Arguments.of(args("--concurrency-sweep", "1,2", "--ttft-jump", "1"), "--ttft-jump (1) must be > 1"),
                Arguments.of(args("--warmup-requests", "-1"), "--warmup-requests (-1) must be >= 0"),
                Arguments.of(args("--warmup-requests", "2", "--warmup-duration", "1"),
                        "--warmup-requests and --warmup-duration are alternatives"),
                Arguments.of(args("--iterations", "0"), "--iterations (0) must be >= 1"),
                Arguments.of(args("--forks", "2"), "--forks needs --iterations"),
                Arguments.of(args("--iterations", "2", "--iteration-time", "0"), "--iteration-time (0) must be > 0"),
                Arguments.of(args("--iterations", "2", "--warmup-requests", "3"),
                        "--warmup-requests cannot be combined with --iterations"),
                Arguments.of(List.of("token-benchmark", "--model", "a,,b"), "--model 'a,,b' has an empty model id"),
                Arguments.of(List.of("token-benchmark", "--model", "a,a"), "--model 'a,a' names 'a' twice"));
    }

    private static List<String> args(String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m",
                "--max-num-completed-requests", "2", "--mean-input-tokens", "60"));
        args.addAll(List.of(extra));
        return args;
    }

    @ParameterizedTest
    @MethodSource("badInputs")
    void badLoadFlagIsOneClearLineAndExit2(List<String> args, String expected) {
        CliRun.of(ENV, args.toArray(String[]::new)).assertOneErrorLine(ExitCodes.USAGE, expected);
    }
}
