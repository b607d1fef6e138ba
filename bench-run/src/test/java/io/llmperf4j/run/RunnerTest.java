package io.llmperf4j.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A Java caller's run: a RunRequest built in code, run against the embedded simulated server. */
class RunnerTest {

    private static CommonSettings common(Path dir, String llmApi) {
        return new CommonSettings(new EndpointTarget.Embedded(), "sim", 2, 60, 4, Map.of(), dir, llmApi, Map.of(),
                Duration.ofSeconds(30), Map.of(), null, null, Duration.ofSeconds(10), false, false, null, null);
    }

    private static RunRequest request(CommonSettings common) {
        WorkloadSpec workload = new WorkloadSpec(60, 0, 8, 0, "llama-2", false, "llmperf", null, 11111, null, null,
                null, null, null, null, null, null, "en", null, null, null);
        return new RunRequest(common, workload, true, null, true, 1, false, true,
                LoadPlan.plain(common.model(), 2, 4, Duration.ofSeconds(60)), null);
    }

    @Test
    void llmperfsClosedLoopFromJavaWritesTheUsualFiles(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        RunStatus status = new Runner(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).run(request(common(dir, "openai")));
        assertEquals(RunStatus.COMPLETED, status, err::toString);
        assertEquals(0, status.exitCode());
        Set<String> results = Set.of("sim_60_8_summary.json", "sim_60_8_individual_responses.json",
                "sim_60_8_requests.csv", "sim_60_8_llmperf4j_summary.json", "requests.jsonl", "sim_60_8_report.html",
                "sim_60_8_events.csv", "sim_60_8_server_metrics.csv"); // the simulator's /metrics, scraped by default
        Set<String> written = new HashSet<>(results);
        written.add(RunFiles.FILE_NAME);
        assertEquals(written, names(dir), err::toString);
        assertEquals(results, Set.copyOf(Files.readAllLines(dir.resolve(RunFiles.FILE_NAME))),
                "the run lists its result files, for the next --overwrite");
        assertEquals(4, Files.readAllLines(dir.resolve("requests.jsonl")).size());
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("Number Of Errored Requests: 0"), out::toString);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("sim_60_8_events.csv, sim_60_8_server_metrics.csv"),
                "the server metrics CSV is named last, as before: " + err);

        // the simulator's ITL histogram has one observation per gap between content events, as the client counts
        JsonNode summary = new ObjectMapper().readTree(dir.resolve("sim_60_8_llmperf4j_summary.json").toFile());
        JsonNode server = summary.get("server");
        assertEquals(summary.get("metrics").get("itl_ms").get("count").asLong(),
                server.get("inter_token_latency").get("observations").asLong(), server::toString);
        assertEquals("vllm:inter_token_latency_seconds", server.get("families").get("inter_token_latency").asText());
        String html = Files.readString(dir.resolve("sim_60_8_report.html"));
        assertTrue(html.contains("<section id=\"server\">") && html.contains("id=\"server-generation\""),
                "the report draws the server's charts");
    }

    @Test
    void aClusterRunOfAnApiWorkersCannotSendIsRefusedBeforeAnythingStarts(@TempDir Path dir) {
        RunRequest embeddings = request(common(dir, "embeddings")).onCluster(new ClusterPlan(null, 1,
                Duration.ofSeconds(1)));
        InvalidRequestException e = assertThrows(InvalidRequestException.class,
                () -> new Runner(System.out, System.err).run(embeddings));
        assertTrue(e.getMessage().contains("--llm-api embeddings is not distributed; use openai, "
                + "openai-completions, anthropic"), e.getMessage());
    }

    private static Set<String> names(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
