package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    @Test
    void theContextSizeDoesNotApplyToTheSimulator() {
        CliRun.of(Map.of(), "serve", "--ctx-size", "4096", "--port", "0")
                .assertOneErrorLine(ExitCodes.USAGE, "--ctx-size applies to --engine llama only");
    }

    @Test
    void theHelpSaysWhichEngineEachEndpointAndOptionBelongsTo() {
        CliRun help = CliRun.of(Map.of(), "serve", "--help");

        assertEquals(ExitCodes.OK, help.exitCode(), help::toString);
        String text = help.out().replaceAll("\\s+", " ");
        assertTrue(text.contains("An OpenAI-compatible server: the embedded simulator (--engine sim) or llama.cpp "
                + "(--engine llama)."), text);
        assertTrue(text.contains("/v1/embeddings and /metrics answer 404"), text);
        assertTrue(text.contains("--strict-model (sim) Answer 404"), text);
        assertTrue(text.contains("--api-key-file=FILE (sim) Require"), text);
        assertTrue(text.contains("--ctx-size=TOKENS (llama) Tokens of context"), text);
    }
}
