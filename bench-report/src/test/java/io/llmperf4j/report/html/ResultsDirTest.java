package io.llmperf4j.report.html;

import static io.llmperf4j.report.html.ReportFixtures.ENVIRONMENT;
import static io.llmperf4j.report.html.ReportFixtures.parse;
import static io.llmperf4j.report.html.ReportFixtures.svg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.csv.RequestCsvWriter;
import io.llmperf4j.report.jsonl.RequestJournal;
import io.llmperf4j.report.llmperf.LlmperfFileNames;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.metrics.Slo;
import io.llmperf4j.report.summary.SummaryJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

class ResultsDirTest {

    private static final BenchmarkRun RUN = ReportFixtures.run(ReportFixtures.settings("meta-llama/Llama-2-7b-chat-hf"));
    private static final MetricsConfig CONFIG = MetricsConfig.DEFAULT.withSlo(Slo.parse("ttft:300ms"));
    private static final RunMetrics METRICS = RunMetrics.of(RUN, CONFIG);
    private static final String BASE = "meta-llama-Llama-2-7b-chat-hf_550_150";

    private static void writeSummary(Path dir) throws IOException {
        SummaryJson.write(RUN, METRICS, "0.1.0-test", ENVIRONMENT, dir);
    }

    private static void writeJournal(Path dir) throws IOException {
        try (RequestJournal journal = RequestJournal.create(dir)) {
            for (RequestRecord r : RUN.records()) journal.append(r);
        }
    }

    private static String section(String html, String id) {
        Matcher m = Pattern.compile("<section id=\"" + id + "\".*?</section>", Pattern.DOTALL).matcher(html);
        assertTrue(m.find(), "no section " + id);
        return m.group();
    }

    @Test
    void rebuildsTheReportFromJournalAndSummary(@TempDir Path dir) throws Exception {
        writeSummary(dir);
        writeJournal(dir);
        Path file = HtmlReport.fromResultsDir(dir);
        assertEquals(dir.resolve(BASE + "_report.html"), file);
        String html = Files.readString(file, StandardCharsets.UTF_8);
        Document doc = parse(html);

        // the run's numbers
        var xp = XPathFactory.newInstance().newXPath();
        String summary = xp.evaluate("//section[@id='summary']", doc);
        assertTrue(summary.contains(String.format(Locale.ROOT, "%.2f", METRICS.outputTokensPerSecond())), summary);
        assertTrue(summary.contains(METRICS.totalOutputTokens() + " tokens"), summary);
        assertTrue(summary.contains("Goodput (TTFT \u2264 300 ms)"), summary);
        assertEquals(String.format(Locale.ROOT, "%.3f",
                        METRICS.stats(io.llmperf4j.report.metrics.Metric.TTFT).p50() / 1e6),
                xp.evaluate("//tr[@data-metric='ttft_ms']/td[3]", doc));
        assertEquals("40 from requests.jsonl", xp.evaluate("//section[@id='conditions']//tr[th='Records']/td", doc));
        assertTrue(xp.evaluate("//section[@id='conditions']", doc).contains("OpenJDK 64-Bit Server VM"));

        // the same page as rendered from memory, but for where the records came from
        String fromMemory = HtmlReport.render(RUN, METRICS, "0.1.0-test", ENVIRONMENT);
        for (String id : new String[] {"warnings", "summary", "latency", "timeline", "errors"}) {
            assertEquals(section(fromMemory, id), section(html, id), id);
        }
        assertFalse(html.contains("no per-event times"));
    }

    @Test
    void fallsBackToTheCsvAndSaysSo(@TempDir Path dir) throws Exception {
        writeSummary(dir);
        RequestCsvWriter.write(RUN.records(), dir.resolve(LlmperfFileNames.requestsCsvFileName(RUN.settings())));
        ReportData data = ReportData.read(dir);
        assertEquals(RecordSource.CSV, data.source());
        assertEquals(40, data.records().size());
        // the CSV holds a server's error body as one printable line (its control characters escaped), and the page
        // rebuilt from it shows that line; the journal and the JSON files keep the body as sent
        assertEquals(io.llmperf4j.model.PrintableText.of(ReportFixtures.HOSTILE_MESSAGE),
                data.records().get(7).failure().message());

        Path file = HtmlReport.fromResultsDir(dir);
        String html = Files.readString(file, StandardCharsets.UTF_8);
        parse(html);
        assertTrue(html.contains("no per-event times"), "the page says the chart is approximate");
        assertTrue(html.contains("40 from the per-request CSV (" + BASE + "_requests.csv); no per-event times"));
        assertTrue(svg(html, "tokens-over-time").contains("per-request averages"));
        // same tokens, just placed differently
        ReportSeries.TimeBuckets b = ReportSeries.timeBuckets(data.records(), data.tokenCounting(),
                RUN.startEpochMillis() * 1_000_000L, RUN.durationNanos(), 1_000_000_000L);
        assertEquals(METRICS.totalOutputTokens(), b.totalOutputTokens(), 1e-6);
        assertEquals(36, b.requestsSpreadEvenly());
        // the table is the summary's either way
        assertEquals(section(HtmlReport.render(RUN, METRICS, "0.1.0-test", ENVIRONMENT), "summary"),
                section(html, "summary"));
    }

    @Test
    void aSummaryWithoutGoodputReadsBack(@TempDir Path dir) throws Exception {
        RunMetrics plain = RunMetrics.of(RUN, MetricsConfig.DEFAULT);
        SummaryJson.write(RUN, plain, "0.1.0-test", ENVIRONMENT, dir);
        writeJournal(dir);
        ReportData data = ReportData.read(dir);
        assertEquals(null, data.summary().goodput());
        assertEquals(RecordSource.JOURNAL, data.source());
        assertEquals(RUN.records().size(), data.records().size());
        String html = HtmlReport.render(data, HtmlReportOptions.DEFAULT);
        assertEquals(section(HtmlReport.render(RUN, plain, "0.1.0-test", ENVIRONMENT), "summary"),
                section(html, "summary"));
        assertFalse(html.contains("Goodput"));
    }

    @Test
    void theSummaryFileItselfMayBeGiven(@TempDir Path dir) throws Exception {
        writeSummary(dir);
        writeJournal(dir);
        Files.writeString(dir.resolve("other_1_1_llmperf4j_summary.json"), "{}");
        IOException several = assertThrows(IOException.class, () -> HtmlReport.fromResultsDir(dir));
        assertTrue(several.getMessage().contains("pass the summary file itself"), several.getMessage());
        Path file = HtmlReport.fromResultsDir(dir.resolve(BASE + "_llmperf4j_summary.json"));
        assertEquals(BASE + "_report.html", file.getFileName().toString());
    }

    @Test
    void missingFilesAreNamed(@TempDir Path dir) throws Exception {
        IOException noSummary = assertThrows(IOException.class, () -> HtmlReport.fromResultsDir(dir));
        assertTrue(noSummary.getMessage().contains("_llmperf4j_summary.json"), noSummary.getMessage());
        assertTrue(noSummary.getMessage().contains(dir.toString()), noSummary.getMessage());

        writeSummary(dir);
        IOException noRecords = assertThrows(IOException.class, () -> HtmlReport.fromResultsDir(dir));
        assertTrue(noRecords.getMessage().contains("requests.jsonl"), noRecords.getMessage());
        assertTrue(noRecords.getMessage().contains(BASE + "_requests.csv"), noRecords.getMessage());

        IOException nowhere = assertThrows(IOException.class,
                () -> HtmlReport.fromResultsDir(dir.resolve("does-not-exist")));
        assertTrue(nowhere.getMessage().contains("does-not-exist"), nowhere.getMessage());
    }

    @Test
    void malformedInputsAreNamed(@TempDir Path dir) throws Exception {
        writeSummary(dir);
        Files.writeString(dir.resolve(RequestJournal.FILE_NAME), "{not json\n");
        IOException journal = assertThrows(IOException.class, () -> HtmlReport.fromResultsDir(dir));
        assertTrue(journal.getMessage().contains("requests.jsonl line 1"), journal.getMessage());

        Path summary = dir.resolve(BASE + "_llmperf4j_summary.json");
        Files.writeString(summary, "{\"schema\": \"something/else\"}");
        IOException wrong = assertThrows(IOException.class, () -> HtmlReport.fromResultsDir(dir));
        assertTrue(wrong.getMessage().contains("is not a llmperf4j summary"), wrong.getMessage());
    }

    @Test
    void aHalfWrittenJournalStillMakesAReportAndAVersion2SummaryReads(@TempDir Path dir) throws Exception {
        writeSummary(dir);
        writeJournal(dir);
        Path journal = dir.resolve(RequestJournal.FILE_NAME);
        String whole = Files.readString(journal);
        Files.writeString(journal, whole + whole.substring(0, 25)); // a killed run's last line
        ReportData data = ReportData.read(dir);
        assertEquals(RUN.records().size(), data.records().size());
        assertTrue(Files.exists(HtmlReport.fromResultsDir(dir)));

        // a /2 summary (no phases, no pre-connects) is still a report
        Path summary = dir.resolve(BASE + "_llmperf4j_summary.json");
        Files.writeString(summary, asVersion2((com.fasterxml.jackson.databind.node.ObjectNode)
                SummaryJson.parse(Files.readString(summary))).toPrettyString());
        assertEquals("llmperf4j.summary/2", ReportData.read(dir).summary().schema());
        assertTrue(Files.exists(HtmlReport.fromResultsDir(dir)));
    }

    private static com.fasterxml.jackson.databind.node.ObjectNode asVersion2(
            com.fasterxml.jackson.databind.node.ObjectNode doc) {
        doc.put("schema", SummaryJson.SCHEMA_2);
        doc.remove("phases");
        ((com.fasterxml.jackson.databind.node.ObjectNode) doc.get("connections")).remove(java.util.List.of("preconnected",
                "preconnect_p50_ms", "preconnect_p99_ms", "preconnect_max_ms"));
        return doc;
    }
}
