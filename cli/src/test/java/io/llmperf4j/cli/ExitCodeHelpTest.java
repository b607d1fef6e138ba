package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every help page lists the same exit codes, and exit 3's names compare's every cause, as compare --help does. */
class ExitCodeHelpTest {

    /** The help's "Exit codes:" section, its lines joined with single spaces. */
    private static String exitCodes(String... args) {
        CliRun run = CliRun.of(Map.of(), args);
        assertEquals(0, run.exitCode(), run::toString);
        int at = run.out().indexOf("Exit codes:");
        assertTrue(at >= 0, run::toString);
        return run.out().substring(at).replaceAll("\\s+", " ");
    }

    @Test
    void theTopLevelHelpSaysExit3CoversACompareSideThatDidNotRunToItsEnd() {
        String top = exitCodes("--help");
        assertTrue(top.contains("3 A --fail-if threshold was crossed, a rule could not be evaluated or a compared "
                + "side did not run to its end (compare), or an --slo objective was missed with --slo-exit "
                + "(token-benchmark)."), top);
        String code3 = top.substring(top.indexOf(" 3 "), top.indexOf(" 4 "));
        assertTrue(exitCodes("compare", "--help").contains(code3), "compare's help lists the same exit 3");
    }
}
