package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The words of a command line that cannot be parsed, where picocli's own would mislead a new user. */
class ParameterErrorTextTest {

    private static List<String> errLines(String... args) {
        CliRun run = CliRun.of(Map.of(), args);
        assertEquals(ExitCodes.USAGE, run.exitCode(), run::toString);
        assertEquals("", run.out(), run::toString);
        return run.err().lines().filter(l -> !l.isBlank()).toList();
    }

    @Test
    void aMissingArgumentFileIsSaidToBeMissing() {
        assertEquals(List.of("llmperf4j: argument file no-such-file.args does not exist (an argument that starts "
                + "with @ names a file of arguments) (see 'llmperf4j token-benchmark --help')"),
                errLines("token-benchmark", "@no-such-file.args"));
    }

    @Test
    void aNumberWithAUnitIsRefusedAsANumberOfSecondsForEveryOptionThatTakesOne() {
        assertEquals(List.of("llmperf4j: Invalid value for option '--iteration-time': '2s' is not a number of seconds "
                + "(give the number alone, e.g. 2 or 0.5, without a unit) (see 'llmperf4j token-benchmark --help')"),
                errLines("token-benchmark", "--iteration-time", "2s"));
        assertEquals(List.of("llmperf4j: Invalid value for option '--idle-timeout': '5min' is not a number of "
                + "seconds (give the number alone, e.g. 2 or 0.5, without a unit) (see 'llmperf4j token-benchmark "
                + "--help')"), errLines("token-benchmark", "--idle-timeout", "5min"));
        assertEquals(List.of("llmperf4j: Invalid value for option '--timeout': '90s' is not a whole number of "
                + "seconds (give the number alone, e.g. 30, without a unit) (see 'llmperf4j token-benchmark --help')"),
                errLines("token-benchmark", "--timeout", "90s"));
        assertEquals(List.of("llmperf4j: Invalid value for option '--ttft-ms': '50ms' is not a number of "
                + "milliseconds (give the number alone, e.g. 2 or 0.5, without a unit) (see 'llmperf4j serve "
                + "--help')"), errLines("serve", "--ttft-ms", "50ms"));
    }

    @Test
    void anUnknownOptionIsListedWithoutItsValue() {
        assertEquals(List.of("llmperf4j: Unknown option: '--max_num_completed_requests' (see 'llmperf4j "
                        + "token-benchmark --help')",
                "  --max_num_completed_requests: did you mean --max-num-completed-requests?"),
                errLines("token-benchmark", "--max_num_completed_requests", "3"));
        assertEquals("llmperf4j: Unknown options: '--max_num_completed_requests', '--num_concurrent_requests=2' (see "
                        + "'llmperf4j token-benchmark --help')",
                errLines("token-benchmark", "--max_num_completed_requests", "3", "--num_concurrent_requests=2")
                        .get(0));
    }
}
