package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** serve --engine llama refuses bad input with one line, before binding anything. */
class ServeLlamaBadInputTest {

    @Test
    void aMissingModelFileIsNamed(@TempDir Path tmp) {
        Path missing = tmp.resolve("nope.gguf");
        CliRun.of(Map.of(), "serve", "--engine", "llama", "--model", missing.toString(), "--port", "0")
                .assertOneErrorLine(ExitCodes.USAGE, "--model " + missing + ": no such file");
    }

    @Test
    void aFileThatIsNoModelIsRefused(@TempDir Path tmp) throws IOException {
        Path notAModel = Files.writeString(tmp.resolve("notes.gguf"), "not a model");
        CliRun.of(Map.of(), "serve", "--engine", "llama", "--model", notAModel.toString(), "--port", "0")
                .assertOneErrorLine(ExitCodes.USAGE, "llama.cpp cannot load " + notAModel);
    }

    @Test
    void simulatorOptionsDoNotApplyToARealEngine() {
        CliRun.of(Map.of(), "serve", "--engine", "llama", "--ttft-ms", "5", "--port", "0")
                .assertOneErrorLine(ExitCodes.USAGE, "--ttft-ms applies to --engine sim only");
    }

    @Test
    void anUnknownEngineIsRefused() {
        CliRun.of(Map.of(), "serve", "--engine", "vllm", "--port", "0")
                .assertOneErrorLine(ExitCodes.USAGE, "--engine must be 'sim' or 'llama' (got 'vllm')");
    }
}
