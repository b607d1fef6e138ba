package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;

import java.util.Map;

/** serve's simulator settings out of range: one line naming the flag the user typed, not the setting's field. */
class ServeBadInputTest {

    @Test
    void anOutOfRangeSettingNamesItsFlag() {
        CliRun.of(Map.of(), "serve", "--fault-rate", "1.5", "--port", "0")
                .assertOneErrorLine(ExitCodes.USAGE, "--fault-rate (1.5) must be");
        CliRun.of(Map.of(), "serve", "--max-num-seqs", "0", "--port", "0")
                .assertOneErrorLine(ExitCodes.USAGE, "--max-num-seqs (0) must be >= 1");
        CliRun.of(Map.of(), "serve", "--tokens-per-chunk", "0", "--port", "0")
                .assertOneErrorLine(ExitCodes.USAGE, "--tokens-per-chunk (0) must be >= 1");
    }
}
