package io.llmperf4j.run.search;

import io.llmperf4j.report.metrics.SloObjectives;
import io.llmperf4j.run.CommonSettings;
import io.llmperf4j.run.EndpointTarget;
import io.llmperf4j.run.LoadPlan;
import io.llmperf4j.run.RunRequest;
import io.llmperf4j.run.Runner;
import io.llmperf4j.run.WorkloadSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The capacity search from Java, as docs/capacity-search.md shows it, against the embedded simulator. */
class SearchApiTest {

    @Test
    void aSearchFromJava(@TempDir Path dir) throws Exception {
        CommonSettings common = new CommonSettings(new EndpointTarget.Embedded(), "sim", 1, 60, 20, Map.of(), dir,
                "openai", Map.of(), Duration.ofSeconds(30), Map.of(), null, null, Duration.ofSeconds(10), false, false,
                null, null);
        WorkloadSpec workload = new WorkloadSpec(60, 0, 8, 0, "llama-2", false, "llmperf", null, 11111, null, null,
                null, null, null, null, null, null, "en", null, null, null);
        SloObjectives slo = SloObjectives.parse("e2e_p90<=10s,error_rate<=5%");
        SearchPlan search = SearchPlan.of(SearchPlan.Mode.CONCURRENCY, slo.objectives())
                .withRange(1, 2)
                .withLevelMax(LevelLimit.requests(8))
                .withMinSamples(5)
                .withPause(Duration.ZERO);
        RunRequest request = new RunRequest(common, workload, true, slo.goodput(), true, 1, false, false,
                LoadPlan.plain("sim", 1, 20, Duration.ofSeconds(60)), null, null, search);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SearchResult result = new Runner(new PrintStream(out, true, StandardCharsets.UTF_8), System.err)
                .search(request);

        assertEquals("above_range", result.outcome(), out::toString);
        assertEquals(2.0, result.capacity().getAsDouble());
        assertEquals(3, result.levelsRun(), "1, 2 and the repeat of 2");
        assertEquals("concurrency", result.document().unit());
        assertEquals(3, result.files().size());
        assertTrue(Files.readString(dir.resolve("sim_60_8_search.json")).contains("above_range"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("capacity above the range"), out::toString);
    }
}
