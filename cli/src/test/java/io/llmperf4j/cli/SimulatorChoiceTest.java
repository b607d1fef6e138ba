package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedded simulated server only when meant: without OPENAI_API_BASE, a run that carries a real server's marks
 * (the key variable, --api-key-file, a named model: an llmperf user's habits) is refused unless --simulator asks for
 * it, and every simulator run says on stdout, below llmperf's block, whose figures these are. The README's first
 * command (no variables, no flags) still runs. llmperf itself fails without OPENAI_API_BASE.
 */
class SimulatorChoiceTest {
    private static final String WAYS_OUT = ": set OPENAI_API_BASE to the server's base URL (e.g. "
            + "http://localhost:8000/v1) to benchmark it, or add --simulator to benchmark the embedded simulated server";
    private static final String NOTICE = "Simulated: these figures are llmperf4j's embedded simulated server's, not a "
            + "real endpoint's (OPENAI_API_BASE is not set).\n";

    private static CliRun bench(Map<String, String> env, Path dir, String... extra) {
        List<String> args = new java.util.ArrayList<>(List.of("token-benchmark", "--no-client-warmup",
                "--max-num-completed-requests", "2", "--num-concurrent-requests", "2", "--mean-input-tokens", "60",
                "--mean-output-tokens", "5", "--stddev-output-tokens", "0", "--no-server-metrics",
                "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(env, args.toArray(String[]::new));
    }

    @Test
    void aNamedModelWithoutTheBaseIsRefusedAndNothingIsWritten(@TempDir Path tmp) {
        Path dir = tmp.resolve("out");
        bench(Map.of(), dir, "--model", "meta-llama/Llama-2-7b-chat-hf").assertOneErrorLine(ExitCodes.USAGE,
                "OPENAI_API_BASE is not set, but --model names 'meta-llama/Llama-2-7b-chat-hf'" + WAYS_OUT);
        assertFalse(Files.exists(dir), "nothing written");
    }

    @Test
    void theKeyOrAKeyFileWithoutTheBaseIsRefused(@TempDir Path tmp) throws IOException {
        bench(Map.of("OPENAI_API_KEY", "sk-job-secret"), tmp.resolve("a"), "--model", "m")
                .assertOneErrorLine(ExitCodes.USAGE, "OPENAI_API_BASE is not set, but OPENAI_API_KEY is set and "
                        + "--model names 'm'" + WAYS_OUT);
        bench(Map.of("OPENAI_API_KEY", "sk-job-secret"), tmp.resolve("b")).assertOneErrorLine(ExitCodes.USAGE,
                "OPENAI_API_BASE is not set, but OPENAI_API_KEY is set" + WAYS_OUT);
        Path keyFile = Files.writeString(tmp.resolve("key.txt"), "sk-file-secret\n");
        CliRun withFile = bench(Map.of(), tmp.resolve("c"), "--api-key-file", keyFile.toString());
        withFile.assertOneErrorLine(ExitCodes.USAGE, "OPENAI_API_BASE is not set, but --api-key-file is given"
                + WAYS_OUT);
        assertFalse(withFile.err().contains("sk-"), "no key in the message: " + withFile);
    }

    @Test
    void correctnessAndAnthropicFollowTheSameRule() {
        CliRun.of(Map.of(), "correctness", "--model", "gpt-3.5-turbo", "--max-num-completed-requests", "1")
                .assertOneErrorLine(ExitCodes.USAGE, "OPENAI_API_BASE is not set, but --model names 'gpt-3.5-turbo'"
                        + WAYS_OUT);
        CliRun.of(Map.of("ANTHROPIC_API_KEY", "k"), "token-benchmark", "--llm-api", "anthropic",
                "--max-num-completed-requests", "1").assertOneErrorLine(ExitCodes.USAGE,
                "ANTHROPIC_API_BASE is not set, but ANTHROPIC_API_KEY is set: set ANTHROPIC_API_BASE to the server's "
                        + "base URL (e.g. https://api.anthropic.com/v1) to benchmark it, or add --simulator");
    }

    @Test
    void simulatorWithTheBaseSetContradictsIt(@TempDir Path tmp) {
        bench(Map.of("OPENAI_API_BASE", "http://127.0.0.1:9/v1", "OPENAI_API_KEY", "k"), tmp, "--model", "m",
                "--simulator").assertOneErrorLine(ExitCodes.USAGE, "--simulator benchmarks the embedded simulated "
                + "server, but OPENAI_API_BASE is set: unset OPENAI_API_BASE, or drop --simulator to benchmark the "
                + "server it names");
    }

    /**
     * The choice is checked first: --simulator with the base set hears the contradiction, not the missing key (whose
     * fix, setting the key, would only lead to this refusal), nor the empty base's words.
     */
    @Test
    void simulatorWithTheBaseButNoKeyHearsTheContradictionFirst(@TempDir Path tmp) {
        String contradiction = "--simulator benchmarks the embedded simulated server, but OPENAI_API_BASE is set: "
                + "unset OPENAI_API_BASE, or drop --simulator to benchmark the server it names";
        bench(Map.of("OPENAI_API_BASE", "http://127.0.0.1:9/v1"), tmp.resolve("a"), "--model", "m", "--simulator")
                .assertOneErrorLine(ExitCodes.USAGE, contradiction);
        bench(Map.of("OPENAI_API_BASE", ""), tmp.resolve("b"), "--simulator").assertOneErrorLine(ExitCodes.USAGE,
                contradiction);
    }

    /**
     * Once the files leave the console, they say whose figures they are: the llmperf4j summary's
     * {@code settings.simulated} and the page's header, for a plain run and for each level of a sweep; llmperf's own
     * files gain no key.
     */
    @Test
    void aSimulatorRunsSummaryAndPageSaySo(@TempDir Path tmp) throws IOException {
        CliRun run = bench(Map.of(), tmp, "--model", "meta-llama/Llama-2-7b-chat-hf", "--simulator");
        assertEquals(0, run.exitCode(), run::toString);
        String base = "meta-llama-Llama-2-7b-chat-hf_60_5";
        com.fasterxml.jackson.databind.JsonNode settings = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(tmp.resolve(base + "_llmperf4j_summary.json").toFile()).get("settings");
        assertTrue(settings.get("simulated").asBoolean(false), settings::toString);
        String page = Files.readString(tmp.resolve(base + "_report.html"));
        assertTrue(page.contains("<p class=\"simulated\" role=\"note\"><strong>Simulated: these figures are "
                + "llmperf4j's embedded simulated server's, not a real endpoint's.</strong></p>"), page);
        assertTrue(page.indexOf("Simulated:") < page.indexOf("</header>"), "in the header");
        assertFalse(Files.readString(tmp.resolve(base + "_summary.json")).contains("simulat"), "llmperf's file");
        // `report DIR` rebuilds the page from the files: the summary's key brings the line back
        Files.delete(tmp.resolve(base + "_report.html"));
        CliRun report = CliRun.of(Map.of(), "report", tmp.toString());
        assertEquals(0, report.exitCode(), report::toString);
        assertTrue(Files.readString(tmp.resolve(base + "_report.html")).contains("<strong>Simulated:"), "rebuilt");
    }

    @Test
    void eachLevelOfASimulatorSweepSaysSo(@TempDir Path tmp) throws IOException {
        CliRun run = bench(Map.of(), tmp, "--model", "m", "--simulator", "--concurrency-sweep", "1,2",
                "--sleep-between", "0");
        assertEquals(0, run.exitCode(), run::toString);
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        com.fasterxml.jackson.databind.JsonNode levels = json.readTree(tmp.resolve("m_60_5_sweep.json").toFile())
                .get("levels");
        assertEquals(2, levels.size(), levels::toString);
        for (com.fasterxml.jackson.databind.JsonNode level : levels) {
            Path dir = tmp.resolve(level.get("results_dir").asText());
            assertTrue(json.readTree(dir.resolve("m_60_5_llmperf4j_summary.json").toFile()).get("settings")
                    .get("simulated").asBoolean(false), level::toString);
            assertTrue(Files.readString(dir.resolve("m_60_5_report.html")).contains("<strong>Simulated:"),
                    level::toString);
        }
    }

    /** The README's first command's shape: no variables, no --model; the notice is stdout's last line. */
    @Test
    void thePlainDemoRunsAndSaysBelowLlmperfsBlockThatItIsTheSimulator(@TempDir Path tmp) {
        CliRun run = bench(Map.of(), tmp);
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().matches("(?s).*\nCompleted Requests Per Minute: [0-9.e+-]+\n" + java.util.regex.Pattern
                .quote(NOTICE)), run::toString);
        assertTrue(Files.exists(tmp.resolve("llmperf4j-sim_60_5_summary.json")));
    }

    @Test
    void simulatorRunsANamedModelUnderItsNameAndSaysSo(@TempDir Path tmp) {
        CliRun run = bench(Map.of("OPENAI_API_KEY", "k"), tmp, "--model", "meta-llama/Llama-2-7b-chat-hf",
                "--simulator");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().endsWith("\n" + NOTICE), run::toString);
        assertTrue(Files.exists(tmp.resolve("meta-llama-Llama-2-7b-chat-hf_60_5_summary.json")));
    }

    /** With --output-format json, stdout is the summary alone: the notice goes with the report, to stderr. */
    @Test
    void jsonOutputKeepsStdoutForTheSummary(@TempDir Path tmp) throws IOException {
        CliRun run = bench(Map.of(), tmp, "--output-format", "json");
        assertEquals(0, run.exitCode(), run::toString);
        assertFalse(run.out().contains("Simulated:"), run::toString);
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(run.out());
        assertTrue(run.err().contains(NOTICE), run::toString);
    }

    @Test
    void correctnessAgainstTheSimulatorEndsWithTheNotice() {
        CliRun run = CliRun.of(Map.of(), "correctness", "--max-num-completed-requests", "1");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().endsWith("Completed without errors: 1\n" + NOTICE), run::toString);
    }

    @Test
    void aRealEndpointsRunHasNoNotice(@TempDir Path tmp) throws IOException {
        try (SimulatedServer server = FastSimulator.start()) {
            CliRun run = bench(FastSimulator.env(server), tmp, "--model", "m");
            assertEquals(0, run.exitCode(), run::toString);
            assertFalse(run.out().contains("Simulated:"), run::toString);
            assertTrue(run.out().endsWith("\n"), run::toString);
        }
        assertFalse(new com.fasterxml.jackson.databind.ObjectMapper().readTree(tmp.resolve("m_60_5_llmperf4j_summary"
                + ".json").toFile()).get("settings").get("simulated").asBoolean(true), "a real endpoint's: false");
        assertFalse(Files.readString(tmp.resolve("m_60_5_report.html")).contains("Simulated:"));
    }
}
