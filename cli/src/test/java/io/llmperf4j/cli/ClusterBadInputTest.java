package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad cluster flags, and what a distributed run does not do yet: one clear line and exit 2, before a cluster member
 * is started or anything is sent.
 */
class ClusterBadInputTest {
    private static final Map<String, String> ENV =
            Map.of("OPENAI_API_BASE", "http://127.0.0.1:9/v1", "OPENAI_API_KEY", "k");

    static Stream<Arguments> badInputs() {
        return Stream.of(
                Arguments.of(args("--workers", "2"), "--workers needs --cluster NAME"),
                Arguments.of(args("--member", "127.0.0.1:5701"), "--member needs --cluster NAME"),
                Arguments.of(args("--cluster", "c"), "--cluster needs --workers N"),
                Arguments.of(args("--cluster", "c", "--workers", "0"), "--workers (0) must be >= 1"),
                Arguments.of(args("--cluster", "c", "--workers", "2", "--member", "h:99999"),
                        "--member: 'h:99999': the port must be a number in 1..65535"),
                Arguments.of(args("--cluster", "c", "--workers", "2", "--llm-api", "embeddings"),
                        "--cluster: --llm-api embeddings is not distributed"));
    }

    private static List<String> args(String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m",
                "--max-num-completed-requests", "2", "--mean-input-tokens", "60"));
        args.addAll(List.of(extra));
        return args;
    }

    @ParameterizedTest
    @MethodSource("badInputs")
    void badClusterFlagIsOneClearLineAndExit2(List<String> args, String expected) {
        CliRun.of(ENV, args.toArray(String[]::new)).assertOneErrorLine(ExitCodes.USAGE, expected);
    }

    /** A port in use: one line of ours naming --bind, exit 1, none of Hazelcast's lines or its stack trace. */
    @Test
    void workerWhosePortIsTakenIsOneLineAndExit1() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            String at = "127.0.0.1:" + taken.getLocalPort();
            CliRun.of(ENV, "worker", "--cluster", "c", "--bind", at, "--member", at, "--no-client-warmup")
                    .assertOneErrorLine(ExitCodes.FAILURE, "llmperf4j: error: cannot bind the cluster port " + at
                            + ": it is in use (another member or program; pick a free port with --bind)");
        }
    }

    @Test
    void workerNeedsACluster() {
        CliRun run = CliRun.of(ENV, "worker");
        assertEquals(ExitCodes.USAGE, run.exitCode(), run::toString);
        assertTrue(run.err().contains("--cluster"), run::toString);
    }
}
