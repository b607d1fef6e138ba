package io.llmperf4j.report.summary;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.report.html.HtmlReport;
import io.llmperf4j.report.metrics.ImageUsage;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.output.LevelOutput;
import io.llmperf4j.report.output.ResultFiles;
import io.llmperf4j.report.testutil.JsonSchemaValidation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The --image-detail a run sent (echoed in settings.metadata.llmperf4j_image_detail) beside the images it counts:
 * the summary's images block, the console's images line and the page's images row.
 */
class ImageDetailReportTest {

    /** {@link ImageUsageReportTest#run()} (6 images in 3 requests) with the metadata a run with --image-detail echoes. */
    private static BenchmarkRun run(String detail) {
        BenchmarkRun images = ImageUsageReportTest.run();
        BenchmarkSettings s = images.settings();
        Map<String, String> metadata = new LinkedHashMap<>(s.metadata());
        if (detail != null) metadata.put(ImageUsage.DETAIL_METADATA_KEY, detail);
        BenchmarkSettings settings = s.toBuilder().metadata(metadata).build();
        return new BenchmarkRun(settings, images.records(), images.startEpochMillis(), images.endEpochMillis(),
                images.durationNanos(), images.requestsSent(), images.timedOut());
    }

    @Test
    void theImagesBlockLineAndRowSayTheDetailSent(@TempDir Path dir) throws Exception {
        BenchmarkRun run = run("low");
        RunMetrics metrics = RunMetrics.of(run, MetricsConfig.DEFAULT);
        JsonNode json = SummaryJson.parse(SummaryJson.toJson(SummaryDocument.of(run, metrics, "0.1.0-test",
                RunEnvironment.current())));
        assertEquals(List.of(), JsonSchemaValidation.violations(SummaryJson.parse(SummaryJson.schemaText()), json));
        assertEquals("low", json.path("images").path("detail").asText());

        String console = SummaryConsoleReport.render(run, metrics);
        assertTrue(console.contains("Images: 6 sent in 3 requests (1.6 Mpixel, 4.7 MB, detail low; 1 of the "
                + "requests failed or were cancelled, their images perhaps not sent whole); input tokens"),
                console);

        String row = "<tr><th scope=\"row\">Images</th><td>6 sent in 3 requests (1.6 Mpixel, 4.7 MB), detail low"
                + "; input tokens: 326.0 image tokens per image (the text&#39;s server count from the request without "
                + "images)</td></tr>";
        String page = HtmlReport.render(run, metrics, "0.1.0-test", RunEnvironment.current());
        assertTrue(page.contains(row), page);

        // rebuilt from the files (report DIR): the summary's images block read back
        LevelOutput level = new LevelOutput(run, metrics, "0.1.0-test", RunEnvironment.current(), null, null, null,
                null, Map.of(), null);
        ResultFiles.SUMMARY.write(level, dir);
        ResultFiles.JOURNAL.write(level, dir);
        assertTrue(Files.readString(HtmlReport.fromResultsDir(dir)).contains(row));
    }

    @Test
    void withoutTheFlagTheDetailIsNullAndTheLineAsBefore() {
        BenchmarkRun run = run(null);
        RunMetrics metrics = RunMetrics.of(run, MetricsConfig.DEFAULT);
        JsonNode json = SummaryJson.parse(SummaryJson.toJson(SummaryDocument.of(run, metrics, "0.1.0-test",
                RunEnvironment.current())));
        assertEquals(List.of(), JsonSchemaValidation.violations(SummaryJson.parse(SummaryJson.schemaText()), json));
        assertTrue(json.path("images").has("detail"), json.path("images").toString());
        assertTrue(json.path("images").path("detail").isNull());
        assertTrue(SummaryConsoleReport.render(run, metrics).contains("Images: 6 sent in 3 requests (1.6 Mpixel, "
                + "4.7 MB; 1 of the requests failed or were cancelled, their images perhaps not sent whole); "
                + "input tokens"));
        assertTrue(HtmlReport.render(run, metrics, "0.1.0-test", RunEnvironment.current()).contains(
                "4.7 MB), detail not sent (the server&#39;s default); input tokens: 326.0 image tokens per image"));
    }
}
