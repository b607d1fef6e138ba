package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A trace replay's flags as the field's tools have them: {@code --max-concurrency} caps a replay (vLLM bench's
 * {@code --max-concurrency}, AIPerf's concurrency limit on a fixed schedule), and the flags a replay has no use for
 * are refused in one line naming what to give instead, not run without.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TraceReplayFlagsTest {

    /** Four requests due at once: without a cap they overlap. */
    private static final String BURST = """
            {"timestamp": 0, "input_length": 20, "output_length": 3}
            {"timestamp": 0, "input_length": 20, "output_length": 3}
            {"timestamp": 0, "input_length": 20, "output_length": 3}
            {"timestamp": 0, "input_length": 20, "output_length": 3}
            """;

    @Test
    void maxConcurrencyCapsAReplayAndItsWaitIsSendLag(@TempDir Path tmp) throws IOException {
        Path trace = Files.writeString(tmp.resolve("t.jsonl"), BURST);
        Path out = tmp.resolve("out");
        CliRun run;
        int peak;
        // each reply streams 3 chunks 20 ms apart: a request sent before the previous one ended would overlap it
        try (SessionRunsCommandTest.Recorder server = new SessionRunsCommandTest.Recorder(Set.of(), 20)) {
            run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x"), "token-benchmark",
                    "--model", "m", "--trace", "mooncake:" + trace, "--max-concurrency", "1", "--no-client-warmup",
                    "--results-dir", out.toString());
            peak = server.maxInFlight.get();
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertEquals(1, peak, "the server never had two requests at once");
        String load = "trace replay of mooncake:" + trace + " (4 requests over 0 s, speedup 1), all 4 requests at t=0 "
                + "(a burst), at most 1 in flight";
        assertTrue(run.err().contains("llmperf4j: load: " + load + "\n"), run::toString);
        assertEquals(load, RunFolder.summary(out).get("settings").get("metadata").get("llmperf4j_load").asText());

        // all four were due at t=0: each later one waited for the one before to end, so its send lag is above 0 and
        // above the one before's
        List<CSVRecord> rows = RunFolder.csv(out).stream()
                .sorted(Comparator.comparingInt(r -> Integer.parseInt(r.get("prompt_index")))).toList();
        assertEquals(4, rows.size());
        for (int k = 1; k < 4; k++) {
            double lag = Double.parseDouble(rows.get(k).get("send_lag_s"));
            double before = Double.parseDouble(rows.get(k - 1).get("send_lag_s"));
            assertTrue(lag > 0 && lag > before, "request " + k + ": send lag " + lag + " s after " + before + " s");
        }
    }

    @Test
    void aTextInputIsSentAsItIsAndBurstGptIsRead(@TempDir Path tmp) throws IOException {
        Path trace = Files.writeString(tmp.resolve("a.jsonl"),
                "{\"timestamp\": 0, \"output_length\": 3, \"text_input\": \"Say exactly: hello\"}\n");
        Path out = tmp.resolve("out");
        List<String> sent;
        CliRun run;
        try (SessionRunsCommandTest.Recorder server = new SessionRunsCommandTest.Recorder(Set.of(), 0)) {
            run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x"), "token-benchmark",
                    "--model", "m", "--trace", "mooncake:" + trace, "--no-client-warmup", "--results-dir",
                    out.toString());
            sent = server.runBodies().stream().map(TraceReplayFlagsTest::lastUserText).toList();
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertEquals(List.of("Say exactly: hello"), sent);
        CSVRecord row = RunFolder.csv(out).get(0);
        assertEquals(io.llmperf4j.tokenize.Tokenizers.builtInLlama2().count("Say exactly: hello"),
                Integer.parseInt(row.get("number_input_tokens")), row::toString);
        assertEquals("3", row.get("max_tokens"));

        Path burst = Files.writeString(tmp.resolve("b.csv"), """
                Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type
                5,ChatGPT,472,18,490,Conversation log
                45,GPT-4,1087,0,1087,API log
                47,GPT-4,30,5,35,API log
                """);
        try (SessionRunsCommandTest.Recorder server = new SessionRunsCommandTest.Recorder(Set.of(), 0)) {
            // sped up 100x: 0 and 0.42 s
            run = CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "x"), "token-benchmark",
                    "--model", "m", "--trace", "burstgpt:" + burst, "--trace-speedup", "100", "--no-client-warmup",
                    "--results-dir", tmp.resolve("burst").toString());
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.err().contains("llmperf4j: trace replay: 1 failed row of burstgpt:" + burst + " skipped "
                + "(Response tokens 0), as vLLM's BurstGPT loader drops them\n"), run::toString);
        assertEquals(List.of("18", "5"), RunFolder.csv(tmp.resolve("burst")).stream()
                .sorted(Comparator.comparingInt(r -> Integer.parseInt(r.get("prompt_index"))))
                .map(r -> r.get("max_tokens")).toList());
        CliRun stats = CliRun.of(Map.of(), "trace-stats", "burstgpt:" + burst);
        assertEquals(0, stats.exitCode(), stats::toString);
        assertTrue(stats.out().startsWith("Trace " + burst + " (burstgpt): 2 requests over 42.000 s (mean 0.0238 "
                + "req/s)\nSkipped: 1 failed row (Response tokens 0), as vLLM's BurstGPT loader drops them\n"),
                stats::toString);
    }

    private static String lastUserText(String body) {
        try {
            JsonNode messages = new ObjectMapper().readTree(body).get("messages");
            return messages.get(messages.size() - 1).get("content").asText();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void theFlagsAReplayHasNoUseForAreRefusedInOneLine(@TempDir Path tmp) throws IOException {
        String trace = "mooncake:" + Files.writeString(tmp.resolve("t.jsonl"), BURST);
        CliRun.of(Map.of(), "token-benchmark", "--trace", trace, "--num-concurrent-requests", "1")
                .assertOneErrorLine(2, "--num-concurrent-requests does not apply to a trace replay (an open loop: "
                        + "requests go out on the trace's timestamps); to cap the requests in flight give "
                        + "--max-concurrency N");
        CliRun.of(Map.of(), "token-benchmark", "--trace", trace, "--max-num-completed-requests", "2")
                .assertOneErrorLine(2, "--max-num-completed-requests does not apply to a trace replay: the whole "
                        + "trace is sent, its request count is the run's (keep its first S seconds with "
                        + "--trace-duration S)");
        CliRun.of(Map.of(), "token-benchmark", "--trace", trace, "--duration", "1")
                .assertOneErrorLine(2, "--duration does not apply to a trace replay: its length is the trace's (keep "
                        + "its first S seconds with --trace-duration S)");
        CliRun.of(Map.of(), "token-benchmark", "--trace", trace, "--arrival-seed", "3")
                .assertOneErrorLine(2, "--arrival-seed does not apply to a trace replay: its arrivals are the "
                        + "trace's timestamps");
        CliRun.of(Map.of(), "token-benchmark", "--trace", trace, "--max-concurrency", "0")
                .assertOneErrorLine(2, "--max-concurrency");
        CliRun.of(Map.of(), "token-benchmark", "--trace", trace, "--search", "rate", "--slo", "ttft_p99<=500ms")
                .assertOneErrorLine(2, "--search does not apply to a trace replay: a search varies the load, a "
                        + "replay sends the trace's (give one of them)");
        CliRun.of(Map.of(), "token-benchmark", "--trace", trace, "--request-rate", "2")
                .assertOneErrorLine(2, "--trace sends on the trace's timestamps: it goes without --request-rate");
    }
}
