package io.llmperf4j.report.html;

import static io.llmperf4j.report.html.ReportFixtures.ENVIRONMENT;
import static io.llmperf4j.report.html.ReportFixtures.parse;
import static io.llmperf4j.report.html.ReportFixtures.svg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.jsonl.RequestJournal;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.summary.SummaryDocument;
import io.llmperf4j.report.summary.SummaryJson;
import io.llmperf4j.servermetrics.csv.ServerMetricsCsvReader;
import io.llmperf4j.servermetrics.summary.ServerLatency;
import io.llmperf4j.servermetrics.summary.ServerSideSummarizer;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 19: the server's charts, from {@code <base>_server_metrics.csv}, on the client's time axis. */
class ServerChartsTest {

    private static final BenchmarkRun RUN = ReportFixtures.run(ReportFixtures.settings("m"));
    private static final String BASE = "m_550_150";

    /** Three scrapes at 0.5, 1.5 and 2.5 s of the scrapes' axis; the measured window starts at 0.5 s. */
    private static final String CSV = String.join("\r\n",
            "time_s,name,labels,value",
            "0.500000,vllm:num_requests_running,\"model_name=\"\"m\"\"\",1",
            "0.500000,vllm:num_requests_waiting,\"model_name=\"\"m\"\"\",0",
            "0.500000,vllm:kv_cache_usage_perc,\"model_name=\"\"m\"\"\",0.1",
            "0.500000,vllm:generation_tokens_total,\"model_name=\"\"m\"\"\",0",
            "1.500000,vllm:num_requests_running,\"model_name=\"\"m\"\"\",3",
            "1.500000,vllm:num_requests_waiting,\"model_name=\"\"m\"\"\",2",
            "1.500000,vllm:kv_cache_usage_perc,\"model_name=\"\"m\"\"\",0.5",
            "1.500000,vllm:generation_tokens_total,\"model_name=\"\"m\"\"\",100",
            "2.000000,scrape_failed,\"reason=\"\"timed out\"\"\",",
            "2.500000,vllm:num_requests_running,\"model_name=\"\"m\"\"\",2",
            "2.500000,vllm:num_requests_waiting,\"model_name=\"\"m\"\"\",0",
            "2.500000,vllm:kv_cache_usage_perc,\"model_name=\"\"m\"\"\",0.25",
            "2.500000,vllm:generation_tokens_total,\"model_name=\"\"m\"\"\",250",
            "");

    private static Path writeRun(Path dir, boolean withServer) throws Exception {
        RunMetrics metrics = RunMetrics.of(RUN, MetricsConfig.DEFAULT);
        SummaryDocument doc = SummaryDocument.of(RUN, metrics, "0.1.0-test", ENVIRONMENT);
        if (withServer) {
            Path csv = dir.resolve(BASE + "_server_metrics.csv");
            Files.writeString(csv, CSV);
            ServerMetricsTimeline timeline = ServerMetricsCsvReader.read(csv);
            ServerSideSummary server = ServerSideSummarizer.summarize(timeline, 500_000_000L, 2_500_000_000L);
            assertEquals(0.5, server.windowStartS(), 1e-12);
            doc = doc.withServer(server);
        }
        SummaryJson.write(doc, dir.resolve(BASE + "_llmperf4j_summary.json"));
        try (RequestJournal journal = RequestJournal.create(dir)) {
            for (RequestRecord r : RUN.records()) journal.append(r);
        }
        return dir;
    }

    private static List<double[]> points(String svg, String seriesClass) {
        Matcher g = Pattern.compile("<g class=\"series " + seriesClass + "\">(.*?)</g>", Pattern.DOTALL).matcher(svg);
        assertTrue(g.find(), "no series " + seriesClass);
        List<double[]> out = new ArrayList<>();
        Matcher p = Pattern.compile("data-x=\"([^\"]+)\" data-y=\"([^\"]+)\"").matcher(g.group(1));
        while (p.find()) out.add(new double[] {Double.parseDouble(p.group(1)), Double.parseDouble(p.group(2))});
        return out;
    }

    @Test
    void drawsTheServerSeriesOnTheClientsTimeAxis(@TempDir Path dir) throws Exception {
        String html = Files.readString(HtmlReport.fromResultsDir(writeRun(dir, true)));
        parse(html);
        assertTrue(html.contains("<section id=\"server\">"));
        assertTrue(html.indexOf("id=\"timeline\"") < html.indexOf("id=\"server\""), "after the client's charts");

        // the window starts at 0.5 s of the scrapes' axis, which is the run's start: 0 on the page
        List<double[]> running = points(svg(html, "server-requests"), "server-running");
        assertEquals(3, running.size());
        assertEquals(0.0, running.get(0)[0], 1e-9);
        assertEquals(1.0, running.get(1)[0], 1e-9);
        assertEquals(3.0, running.get(1)[1], 1e-9);
        assertEquals(List.of(0.0, 2.0, 0.0), points(svg(html, "server-requests"), "server-waiting").stream()
                .map(p -> p[1]).toList());
        assertEquals(List.of(10.0, 50.0, 25.0), points(svg(html, "server-kv-cache"), "server-kv-cache").stream()
                .map(p -> p[1]).toList());
        List<double[]> generation = points(svg(html, "server-generation"), "server-generation");
        assertEquals(2, generation.size(), "a rate between consecutive scrapes");
        assertEquals(100.0, generation.get(0)[1], 1e-9);
        assertEquals(150.0, generation.get(1)[1], 1e-9);
        assertTrue(html.contains("<title>1.00 s: 3 running</title>"), "hover text");
        assertTrue(html.contains("1 failed: gaps"), "the failed scrape is named");
        assertTrue(svg(html, "server-requests").contains("client-in-flight"), "beside the client's in flight");
        assertTrue(html.contains("<table class=\"server-latency\">") && html.contains("<tr data-metric=\"itl_ms\">"),
                "the server's latency percentiles beside the client's");
    }

    /**
     * QA: a KV-cache gauge the server served as NaN was left out of the Server line without a word, and "peak of
     * samples every 1 s" hid that it rested on one sample. The line says how many samples and that the gauge read NaN.
     */
    @Test
    void theServerLineSaysHowManySamplesAndANotANumberKvCache(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve(BASE + "_server_metrics.csv");
        Files.writeString(csv, CSV.replace("1.500000,vllm:kv_cache_usage_perc,\"model_name=\"\"m\"\"\",0.5",
                "1.500000,vllm:kv_cache_usage_perc,\"model_name=\"\"m\"\"\",NaN"));
        ServerSideSummary server = ServerSideSummarizer.summarize(ServerMetricsCsvReader.read(csv), 500_000_000L,
                2_500_000_000L).withSampleInterval(1.0);
        assertTrue(server.kvCacheNotANumber(), server::toString);
        SummaryDocument doc = SummaryDocument.of(RUN, RunMetrics.of(RUN, MetricsConfig.DEFAULT), "0.1.0-test",
                ENVIRONMENT).withServer(server);
        SummaryJson.write(doc, dir.resolve(BASE + "_llmperf4j_summary.json"));
        try (RequestJournal journal = RequestJournal.create(dir)) {
            for (RequestRecord r : RUN.records()) journal.append(r);
        }
        String html = Files.readString(HtmlReport.fromResultsDir(dir));
        assertTrue(html.contains("peak of 1 sample (sampled every 1 s): running 3, waiting 2, KV cache not a number "
                + "(its gauge read NaN)"), html);
    }

    /**
     * TGI's inter-token figure is each request's mean time per token, not the client's gaps between content events:
     * its row says so (QA: labelled "ITL" beside the client's per-event ITL). A percentile that is Markov's cap reads
     * "\u2264" (QA: a queue p99 of 10.56 ms read as measured when every wait was about 0.1 ms).
     */
    @Test
    void tgisPerRequestMeanTimePerTokenIsLabelledSoAndAnUpperBoundIsMarked(@TempDir Path dir) throws Exception {
        writeRun(dir, true);
        Path json = dir.resolve(BASE + "_llmperf4j_summary.json");
        ServerSideSummary s = ServerSideSummarizer.summarize(ServerMetricsCsvReader.read(
                dir.resolve(BASE + "_server_metrics.csv")), 500_000_000L, 2_500_000_000L);
        SummaryDocument doc = SummaryDocument.of(RUN, RunMetrics.of(RUN, MetricsConfig.DEFAULT), "0.1.0-test",
                ENVIRONMENT);
        // its p99 is Markov's cap mean / (1 - q): an upper bound, marked so
        ServerLatency itl = new ServerLatency(10, 0.0004, 0.02, 0.03, 0.04, null, null, null, List.of("p99"));
        ServerSideSummary tgi = new ServerSideSummary("tgi", s.scrapesInWindow(), s.failedScrapesInWindow(),
                s.windowS(), s.scrapeSpanS(), s.peakRequestsRunning(), s.peakRequestsWaiting(), null, null, null,
                s.generationTokens(), s.generationTokensPerS(), null, null, itl, null, null,
                java.util.Map.of("inter_token_latency", "tgi_request_mean_time_per_token_duration"),
                s.quantileMethod(), s.windowStartS(), s.scrapesInsideWindow(), null, List.of());
        SummaryJson.write(doc.withServer(tgi), json);
        String html = Files.readString(HtmlReport.fromResultsDir(dir));
        assertTrue(html.contains("<tr data-metric=\"itl_ms\"><td>ITL (server: per-request mean time per token)</td>"),
                html);
        assertTrue(html.contains(">\u2264 40.00"), "the p99 reads as a bound");
        assertFalse(html.contains(">\u2264 30.00"), "the p90 was interpolated");
        assertTrue(html.contains("\u2264 marks an upper bound, not a measurement"), "the caption says what \u2264 is");
        SummaryJson.write(doc.withServer(s), json);
        html = Files.readString(HtmlReport.fromResultsDir(dir));
        assertTrue(html.contains("<tr data-metric=\"itl_ms\"><td>ITL</td>"), "vLLM's is the gaps' histogram");
    }

    /** The CSV with a second model's series on the same server: 5 more running, 1000 more tokens a second. */
    private static String twoModels() {
        StringBuilder b = new StringBuilder();
        String[] times = {"0.500000", "1.500000", "2.500000"};
        int i = -1;
        for (String line : CSV.split("\r\n")) {
            if (i >= 0 && i < times.length && !line.startsWith(times[i])) {
                b.append(other(times[i], i));
                i++;
            }
            if (i < 0 && line.startsWith(times[0])) i = 0;
            b.append(line).append("\r\n");
        }
        return b.append(other(times[2], 2)).toString();
    }

    private static String other(String time, int scrape) {
        return time + ",vllm:num_requests_running,\"model_name=\"\"other\"\"\",5\r\n"
                + time + ",vllm:generation_tokens_total,\"model_name=\"\"other\"\"\"," + 1000 * scrape + "\r\n";
    }

    /** Writes a run with {@link #twoModels()}'s CSV and the server section summarized for {@code model}. */
    private static Path writeTwoModelRun(Path dir, String model) throws Exception {
        Path csv = dir.resolve(BASE + "_server_metrics.csv");
        Files.writeString(csv, twoModels());
        ServerSideSummary server = ServerSideSummarizer.summarize(ServerMetricsCsvReader.read(csv), 500_000_000L,
                2_500_000_000L, model);
        SummaryDocument doc = SummaryDocument.of(RUN, RunMetrics.of(RUN, MetricsConfig.DEFAULT), "0.1.0-test",
                ENVIRONMENT).withServer(server);
        SummaryJson.write(doc, dir.resolve(BASE + "_llmperf4j_summary.json"));
        try (RequestJournal journal = RequestJournal.create(dir)) {
            for (RequestRecord r : RUN.records()) journal.append(r);
        }
        return dir;
    }

    /** The charts draw the series the summary's figures came from: the run's model's where the server labels them. */
    @Test
    void theChartsDrawTheSummarysModelsSeriesAlone(@TempDir Path dir) throws Exception {
        String html = Files.readString(HtmlReport.fromResultsDir(writeTwoModelRun(dir, "m")));
        parse(html);
        assertEquals(List.of(1.0, 3.0, 2.0), points(svg(html, "server-requests"), "server-running").stream()
                .map(p -> p[1]).toList(), "m's running, not 6, 8, 7 with the other model's");
        assertEquals(List.of(100.0, 150.0), points(svg(html, "server-generation"), "server-generation").stream()
                .map(p -> p[1]).toList(), "m's tokens/s, not 1100, 1150");
        assertTrue(html.contains("<span class=\"server-model\">model m's series alone</span>"), html);
        assertFalse(html.contains("server-warnings"), "nothing doubtful to say");
    }

    /** No series of the run's model: the summary adds them all up and warns, the charts too, and the page says so. */
    @Test
    void withoutTheModelsSeriesTheChartsAddThemUpAndThePageSaysWhy(@TempDir Path dir) throws Exception {
        String html = Files.readString(HtmlReport.fromResultsDir(writeTwoModelRun(dir, "llama")));
        parse(html);
        assertEquals(List.of(6.0, 8.0, 7.0), points(svg(html, "server-requests"), "server-running").stream()
                .map(p -> p[1]).toList());
        assertFalse(html.contains("server-model"));
        Matcher warnings = Pattern.compile("<div class=\"note server-warnings\">(.*?)</div>", Pattern.DOTALL)
                .matcher(html);
        assertTrue(warnings.find(), html);
        assertTrue(warnings.group(1).contains("<li>no series labelled model_name=&quot;llama&quot; (the server&#39;s: "
                + "m, other): the figures add up every model&#39;s series"), warnings.group(1));
    }

    @Test
    void noServerSectionWithoutItsFile(@TempDir Path dir) throws Exception {
        String html = Files.readString(HtmlReport.fromResultsDir(writeRun(dir, false)));
        assertFalse(html.contains("id=\"server\""));
        assertFalse(html.contains("href=\"#server\""));
    }
}
