package io.llmperf4j.report.summary;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestTags;
import io.llmperf4j.report.csv.RequestCsvReader;
import io.llmperf4j.report.csv.RequestCsvWriter;
import io.llmperf4j.report.jsonl.RequestJournal;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.testutil.JsonSchemaValidation;
import io.llmperf4j.report.testutil.Records;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringReader;
import java.nio.file.Path;
import java.util.List;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Image counts per request in the CSV and the journal, and the summary's images section. */
class ImageUsageReportTest {
    private static final RequestTags TWO_IMAGES = new RequestTags(null, -1, null, 2, 2 * 512 * 512, 2 * 786_970);

    static BenchmarkRun run() {
        List<RequestRecord> records = List.of(
                request(0).evenEvents(300 * MS, 10 * MS, 5).e2e(400 * MS).input(40).usage(40 + 8 + 2 * 326, 5).client(6)
                        .build().withTags(TWO_IMAGES),
                request(1).evenEvents(320 * MS, 10 * MS, 5).e2e(420 * MS).input(50).usage(50 + 8 + 2 * 326, 5).client(6)
                        .build().withTags(TWO_IMAGES),
                request(2).e2e(40 * MS).input(45).failed(FailureKind.HTTP_STATUS, 400, "bad image").build()
                        .withTags(TWO_IMAGES),
                request(3).evenEvents(100 * MS, 10 * MS, 5).e2e(200 * MS).input(30).usage(30 + 8, 5).client(6).build());
        return new BenchmarkRun(Records.settings(), records, 1_703_136_124_250L, 1_703_136_125_250L, 1_000 * MS, 4,
                false);
    }

    @Test
    void csvAppendsImageColumnsAndReadsThemBack() throws Exception {
        StringBuilder csv = new StringBuilder();
        RequestCsvWriter.write(run().records(), csv);
        String header = csv.substring(0, csv.indexOf("\r\n"));
        assertTrue(header.endsWith(",last_content_s,session_id,turn,cached_tokens,image_count,image_pixels,image_bytes"),
                header);
        assertTrue(csv.toString().contains(",2,524288,1573940\r\n"), csv.toString());
        assertTrue(csv.toString().contains(",0,0,0\r\n"), "a request without images: zeros");
        List<RequestRecord> read = RequestCsvReader.read(new StringReader(csv.toString()), "test.csv");
        assertEquals(TWO_IMAGES, read.get(0).tags());
        assertEquals(RequestTags.NONE, read.get(3).tags());

        StringBuilder textOnly = new StringBuilder();
        RequestCsvWriter.write(List.of(run().records().get(3)), textOnly);
        assertFalse(textOnly.toString().contains("image_count"), "text-only runs keep the old columns");
    }

    @Test
    void theJournalRoundTripsTheTags(@TempDir Path dir) throws Exception {
        try (RequestJournal journal = RequestJournal.create(dir)) {
            for (RequestRecord record : run().records()) journal.append(record);
        }
        List<RequestRecord> read = RequestJournal.read(dir.resolve(RequestJournal.FILE_NAME));
        for (int i = 0; i < 4; i++) assertEquals(run().records().get(i).tags(), read.get(i).tags());
    }

    @Test
    void theSummarySaysWhichInputCountIsWhose() {
        BenchmarkRun run = run();
        RunMetrics metrics = RunMetrics.of(run, MetricsConfig.DEFAULT);
        String text = SummaryJson.toJson(SummaryDocument.of(run, metrics, "0.1.0-test", RunEnvironment.current()));
        JsonNode json = SummaryJson.parse(text);
        assertEquals(List.of(), JsonSchemaValidation.violations(SummaryJson.parse(SummaryJson.schemaText()), json));
        JsonNode images = json.get("images");
        assertEquals(3, images.get("requests_with_images").asInt());
        assertEquals(6, images.get("images_sent").asInt());
        assertEquals(3 * 2 * 786_970L, images.get("bytes_sent").asLong());
        assertEquals(2, images.get("requests_with_server_usage").asInt(), "the failed request has no usage");
        assertEquals(90 + 2 * 8 + 4 * 326, images.get("server_prompt_tokens").asInt());
        assertEquals(90, images.get("client_text_tokens").asInt());
        assertEquals(330.0, images.get("server_tokens_beyond_text_per_image").asDouble(), "the template's 8 included");
        // the request without images: the server counts its text 8 more than the client (one length: no slope)
        assertEquals(1, images.get("text_only_requests_with_server_usage").asInt());
        assertEquals(8.0, images.get("text_server_tokens_fixed").asDouble(), 1e-9);
        assertEquals(1.0, images.get("text_server_tokens_per_client_token").asDouble());
        assertEquals(326.0, images.get("image_tokens_per_image").asDouble(), 1e-9);
        String console = SummaryConsoleReport.render(run, metrics);
        assertTrue(console.contains("Images: 6 sent in 3 requests (1.6 Mpixel, 4.7 MB; 1 of the requests failed or were cancelled, "
                + "their images perhaps not sent whole); input tokens per request: "
                + "server usage 705.0 (text + images + template) vs client tokenizer 45.0 (text only), 326.0 image "
                + "tokens per image (the text's server count from the request without images)\n"), console);

        BenchmarkRun textOnly = new BenchmarkRun(run.settings(), List.of(run.records().get(3)), 0, 1, 1, 1, false);
        assertFalse(SummaryJson.toJson(SummaryDocument.of(textOnly, RunMetrics.of(textOnly, MetricsConfig.DEFAULT),
                "0.1.0-test", RunEnvironment.current())).contains("\"images\""), "absent without images");
    }
}
