package io.llmperf4j.report.html;

import static io.llmperf4j.report.html.ReportFixtures.ENVIRONMENT;
import static io.llmperf4j.report.html.ReportFixtures.HOSTILE_MESSAGE;
import static io.llmperf4j.report.html.ReportFixtures.HOSTILE_MODEL;
import static io.llmperf4j.report.html.ReportFixtures.parse;
import static io.llmperf4j.report.html.ReportFixtures.run;
import static io.llmperf4j.report.html.ReportFixtures.settings;
import static io.llmperf4j.report.html.ReportFixtures.svg;
import static io.llmperf4j.report.html.ReportFixtures.svgBlocks;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.metrics.Slo;
import io.llmperf4j.report.testutil.Records;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

class HtmlReportTest {

    private static final BenchmarkRun RUN = run(settings("meta-llama/Llama-2-7b-chat-hf"));
    private static final RunMetrics METRICS = RunMetrics.of(RUN, MetricsConfig.DEFAULT);

    private static String page() {
        return HtmlReport.render(RUN, METRICS, "0.1.0-test", ENVIRONMENT);
    }

    private static String xpath(Document doc, String expression) throws Exception {
        return XPathFactory.newInstance().newXPath().evaluate(expression, doc);
    }

    private static NodeList nodes(Document doc, String expression) throws Exception {
        return (NodeList) XPathFactory.newInstance().newXPath().evaluate(expression, doc, XPathConstants.NODESET);
    }

    /** Written section by section to the file, the page has the bytes of the page rendered as one string. */
    @Test
    void theFileWrittenAsItIsMadeHoldsTheRenderedPage(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        ReportData data = ReportData.of(RUN, METRICS, "0.1.0-test", ENVIRONMENT);
        java.nio.file.Path file = dir.resolve("page.html");
        HtmlReport.write(data, HtmlReportOptions.DEFAULT, file);
        assertEquals(HtmlReport.render(data, HtmlReportOptions.DEFAULT),
                java.nio.file.Files.readString(file, java.nio.charset.StandardCharsets.UTF_8));
        assertTrue(java.nio.file.Files.size(file) > 8192 * 3, "the page spans several chunks");
    }

    @Test
    void theWholePageAndEverySvgAreWellFormed() throws Exception {
        String html = page();
        assertTrue(html.startsWith("<!DOCTYPE html>\n<html lang=\"en\">"), html.substring(0, 40));
        Document doc = parse(html);
        assertEquals("html", doc.getDocumentElement().getTagName());
        List<String> svgs = svgBlocks(html);
        assertEquals(5, svgs.size(), "TTFT CDF, E2E CDF, tokens/s, in flight, TTFT scatter");
        for (String svg : svgs) parse(svg);
        for (String id : List.of("ttft-cdf", "e2e-cdf", "tokens-over-time", "in-flight", "ttft-scatter")) {
            assertEquals(1, nodes(doc, "//svg[@id='" + id + "']").getLength(), id);
        }
    }

    @Test
    void noScriptNoExternalResourceAndNoUrlButTheEndpoint() {
        String html = page();
        String withoutEndpoint = html.replace("http://localhost:8000/v1", "");
        assertFalse(withoutEndpoint.contains("http://"), "only the endpoint may name a URL");
        assertFalse(withoutEndpoint.contains("https://"));
        assertFalse(html.contains("<script"));
        assertFalse(html.contains("<link"));
        assertFalse(html.contains("<img"));
        assertFalse(html.contains("@import"));
        assertFalse(html.contains("src="));
        // every url( is a reference to a clip path of the page itself
        Matcher m = Pattern.compile("url\\(([^)]*)\\)").matcher(html);
        while (m.find()) assertTrue(m.group(1).startsWith("#"), m.group());
        // the endpoint is text, never a link
        assertFalse(html.contains("href=\"http"));
        for (Matcher href = Pattern.compile("href=\"([^\"]*)\"").matcher(html); href.find(); ) {
            assertTrue(href.group(1).startsWith("#"), href.group());
        }
    }

    @Test
    void hostileModelNameAndErrorMessageAreEscaped() throws Exception {
        BenchmarkRun hostile = run(settings(HOSTILE_MODEL));
        String html = HtmlReport.render(hostile, RunMetrics.of(hostile, MetricsConfig.DEFAULT), "0.1.0-test",
                ENVIRONMENT);
        assertFalse(html.contains("<script>"), "raw markup from the model name");
        assertFalse(html.contains("<b>died</b>"), "raw markup from the error message");
        assertFalse(html.contains("\u001b"), "a control character");
        assertTrue(html.contains("evil/&lt;script&gt;alert(&quot;pwn&quot;)&lt;/script&gt;&amp;&#39;model&#39;"));
        Document doc = parse(html);
        // the parser reads back exactly the original text: escaped once, correctly
        assertEquals(HOSTILE_MODEL, xpath(doc, "//h1/span[@class='model']"));
        assertEquals("llmperf4j report: " + HOSTILE_MODEL, xpath(doc, "/html/head/title"));
        String shown = HOSTILE_MESSAGE.replace("\u001b", "\\u001b");
        assertEquals(shown, xpath(doc, "//table[@class='errors']/tbody/tr[1]/td[5]/code[1]"));
        assertEquals(shown + " (again)", xpath(doc, "//table[@class='errors']/tbody/tr[1]/td[5]/code[2]"));
        assertEquals("HTTP_STATUS", xpath(doc, "//table[@class='errors']/tbody/tr[1]/td[1]"));
        assertEquals("502", xpath(doc, "//table[@class='errors']/tbody/tr[1]/td[2]"));
        assertEquals("3", xpath(doc, "//table[@class='errors']/tbody/tr[1]/td[3]"));
        assertEquals("CANCELLED", xpath(doc, "//table[@class='errors']/tbody/tr[2]/td[1]"));
    }

    @Test
    void headerStatesTheTestConditions() throws Exception {
        Document doc = parse(page());
        String conditions = xpath(doc, "//section[@id='conditions']");
        for (String expected : List.of("meta-llama/Llama-2-7b-chat-hf", "http://localhost:8000/v1", "openai",
                "{\"temperature\":0.7,\"top_p\":0.95}", "llama-2 (built in)", "11111", "0.1.0-test",
                "OpenJDK 64-Bit Server VM 17.0.12+7 (Eclipse Adoptium)", "Linux 6.1.0 (amd64)", "2023-12-21T05:22:04Z",
                "150 \u00b1 10", "550 \u00b1 150")) {
            assertTrue(conditions.contains(expected), expected + " in " + conditions);
        }
        assertEquals("8", xpath(doc, "//section[@id='conditions']//tr[th='CPUs']/td"));
        assertEquals("40 from the run in memory", xpath(doc, "//section[@id='conditions']//tr[th='Records']/td"));
        assertEquals("4", xpath(doc, "//section[@id='conditions']//tr[th='Concurrency']/td"));
    }

    /**
     * A replayed manifest counted by another tokenizer than the run's: its summary's
     * {@code settings.input_tokens_tokenizer} is on the page where the tokenizer is, saying which counted which; a
     * run without it shows the one tokenizer alone.
     */
    @Test
    void theTokenizerRowNamesTheInputTokensTokenizerOnlyWhenTheSummaryHasIt() throws Exception {
        String row = "//section[@id='conditions']//tr[th='Tokenizer']/td";
        assertEquals("llama-2 (built in)", xpath(parse(page()), row));

        io.llmperf4j.model.BenchmarkSettings s = settings("meta-llama/Llama-2-7b-chat-hf");
        io.llmperf4j.model.BenchmarkSettings replay = s.toBuilder()
                .tokenizer("jtokkit:cl100k_base")
                .inputTokensTokenizer("llama-2")
                .build();
        BenchmarkRun run = run(replay);
        String html = HtmlReport.render(run, RunMetrics.of(run, MetricsConfig.DEFAULT), "0.1.0-test", ENVIRONMENT);
        assertEquals("input tokens counted with llama-2 (the replayed manifest's counts), output tokens with "
                + "jtokkit:cl100k_base", xpath(parse(html), row));
    }

    @Test
    void summaryTableHasTheConsoleColumnsAndNumbers() throws Exception {
        Document doc = parse(page());
        assertEquals("metricnp50p90p99meanunit", xpath(doc, "//table[@class='stats']/thead/tr").replace(" ", ""));
        // every metric but TTFRT, which is left out when no request streamed reasoning
        assertEquals(8, nodes(doc, "//table[@class='stats']/tbody/tr").getLength());
        assertEquals(0, nodes(doc, "//table[@class='stats']/tbody/tr[@data-metric='ttfrt_ms']").getLength());
        var ttft = METRICS.stats(io.llmperf4j.report.metrics.Metric.TTFT);
        String row = "//table[@class='stats']/tbody/tr[@data-metric='ttft_ms']/td";
        assertEquals("TTFT", xpath(doc, row + "[1]"));
        assertEquals(Long.toString(ttft.count()), xpath(doc, row + "[2]"));
        assertEquals(String.format(Locale.ROOT, "%.3f", ttft.p50() / 1e6), xpath(doc, row + "[3]"));
        assertEquals(String.format(Locale.ROOT, "%.3f", ttft.p90() / 1e6), xpath(doc, row + "[4]"));
        assertEquals(String.format(Locale.ROOT, "%.3f", ttft.mean() / 1e6), xpath(doc, row + "[6]"));
        assertEquals("ms", xpath(doc, row + "[7]"));
        String summary = xpath(doc, "//section[@id='summary']");
        assertTrue(summary.contains(String.format(Locale.ROOT, "%.2f", METRICS.outputTokensPerSecond())), summary);
    }

    /**
     * A level a signal cut short says so at the top of its page, above the warnings: written by the run
     * (ResultFiles.HTML, from the level's stoppedBy) and rebuilt from the summary's run.stopped_by (report DIR).
     */
    @Test
    void aRunCutShortBySignalSaysSoAtTheTop(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        io.llmperf4j.report.output.LevelOutput level = new io.llmperf4j.report.output.LevelOutput(RUN, METRICS,
                "0.1.0-test", ENVIRONMENT, null, null, null, null, java.util.Map.of(), "SIGINT");
        java.nio.file.Path file = io.llmperf4j.report.output.ResultFiles.HTML.write(level, dir).get(0);
        String written = java.nio.file.Files.readString(file);
        Document doc = parse(written);
        assertEquals("alert", xpath(doc, "//section[@id='stopped']/@role"));
        String notice = xpath(doc, "//section[@id='stopped']");
        assertTrue(notice.startsWith("Stopped by SIGINT before its end."), notice);
        assertTrue(notice.contains(String.format(Locale.ROOT, "%.3f s it ran (%d requests recorded)",
                RUN.durationNanos() / 1e9, RUN.records().size())), notice);
        assertTrue(written.indexOf("id=\"stopped\"") < written.indexOf("id=\"warnings\""), "above the warnings");
        assertTrue(xpath(doc, "//header/p[@class='sub']").contains("stopped by SIGINT"));

        io.llmperf4j.report.output.ResultFiles.SUMMARY.write(level, dir);
        java.nio.file.Files.delete(file);
        io.llmperf4j.report.output.ResultFiles.JOURNAL.write(level, dir);
        String rebuilt = java.nio.file.Files.readString(HtmlReport.fromResultsDir(dir));
        assertTrue(xpath(parse(rebuilt), "//section[@id='stopped']").startsWith("Stopped by SIGINT"));

        assertFalse(page().contains("id=\"stopped\""), "a run that ran to its end has no notice");
    }

    @Test
    void warningsAreShownFirst() throws Exception {
        String html = page();
        Document doc = parse(html);
        assertEquals("alert", xpath(doc, "//section[@id='warnings']/@role"));
        String warnings = xpath(doc, "//section[@id='warnings']");
        assertTrue(warnings.contains("REQUESTS_FAILED"), warnings);
        assertTrue(html.indexOf("id=\"warnings\"") < html.indexOf("id=\"summary\""));
    }

    @Test
    void cdfIsDrawnMonotonicFromZeroToOne() throws Exception {
        Document chart = parse(svg(page(), "ttft-cdf"));
        String d = xpath(chart, "//g[contains(@class,'cdf')]/path/@d");
        // M x y (H x V y)*: x never decreases, y (pixels, downwards) never increases
        Matcher m = Pattern.compile("([MHV])([-0-9.]+)(?: ([-0-9.]+))?").matcher(d);
        double x = Double.NEGATIVE_INFINITY;
        double y = Double.POSITIVE_INFINITY;
        List<Double> ys = new ArrayList<>();
        while (m.find()) {
            switch (m.group(1)) {
                case "M" -> {
                    x = Double.parseDouble(m.group(2));
                    y = Double.parseDouble(m.group(3));
                    ys.add(y);
                }
                case "H" -> {
                    double nx = Double.parseDouble(m.group(2));
                    assertTrue(nx >= x, "x went back in " + d);
                    x = nx;
                }
                default -> {
                    double ny = Double.parseDouble(m.group(2));
                    assertTrue(ny <= y, "CDF fell in " + d);
                    y = ny;
                    ys.add(y);
                }
            }
        }
        // starts on the 0 line of the plot and ends on the 1 line: the p50/p90 guides sit between them
        double p50 = Double.parseDouble(xpath(chart, "//g[contains(@class,'marker-p50')]/line/@y1"));
        double p90 = Double.parseDouble(xpath(chart, "//g[contains(@class,'marker-p90')]/line/@y1"));
        double zero = ys.get(0);
        double one = ys.get(ys.size() - 1);
        assertEquals(0.5, (zero - p50) / (zero - one), 0.01);
        assertEquals(0.9, (zero - p90) / (zero - one), 0.01);
    }

    @Test
    void sloBoundsAreMarked() throws Exception {
        String html = HtmlReport.render(RUN, RunMetrics.of(RUN, MetricsConfig.DEFAULT.withSlo(Slo.parse("ttft:300ms,e2e:2s"))),
                "0.1.0-test", ENVIRONMENT);
        Document doc = parse(html);
        assertEquals("300", xpath(doc, "//svg[@id='ttft-cdf']//g[contains(@class,'marker-slo')]/@data-value"));
        assertEquals("2000", xpath(doc, "//svg[@id='e2e-cdf']//g[contains(@class,'marker-slo')]/@data-value"));
        assertEquals("300", xpath(doc, "//svg[@id='ttft-scatter']//g[contains(@class,'marker-slo')]/@data-value"));
        assertTrue(xpath(doc, "//section[@id='summary']").contains("Goodput (TTFT \u2264 300 ms, E2E \u2264 2000 ms)"));
    }

    @Test
    void scatterShowsEveryRequestWithAFirstToken() throws Exception {
        Document chart = parse(svg(page(), "ttft-scatter"));
        assertEquals(36, nodes(chart, "//g[contains(@class,'ttft-ok')]/circle").getLength());
        assertEquals(1, nodes(chart, "//g[contains(@class,'ttft-failed')]/path").getLength(), "the cancelled one");
        assertEquals("req-0: TTFT 100.0 ms at 0.00 s", xpath(chart, "//g[contains(@class,'ttft-ok')]/circle[1]/title"));
    }

    @Test
    void anEmptyRunStillRenders() throws Exception {
        BenchmarkRun empty = Records.run(0, false, List.of());
        String html = HtmlReport.render(empty, RunMetrics.of(empty, MetricsConfig.DEFAULT), "0.1.0-test", ENVIRONMENT);
        Document doc = parse(html);
        for (String svg : svgBlocks(html)) parse(svg);
        assertTrue(xpath(doc, "//section[@id='errors']").contains("No request failed."));
        assertTrue(xpath(doc, "//svg[@id='ttft-cdf']").contains("No successful requests with content"));
        assertTrue(xpath(doc, "//section[@id='warnings']").contains("FEW_SAMPLES"));
    }

    @Test
    void credentialsInTheEndpointNeverReachThePage() {
        String key = "sk-proj-AbCdEf0123456789XyZabcdef";
        var s = settings("m");
        var secret = io.llmperf4j.model.BenchmarkSettings.builder()
                .model("m")
                .meanInputTokens(550)
                .stddevInputTokens(150)
                .meanOutputTokens(150)
                .stddevOutputTokens(10)
                .numConcurrentRequests(4)
                .timeoutSeconds(600)
                .maxNumCompletedRequests(40)
                .additionalSamplingParams(s.additionalSamplingParams())
                .llmApi("openai")
                .metadata(java.util.Map.of("api_key", "hunter2"))
                .endpoint("https://bench:" + key + "@llm.example.com:8443/v1?api_key=" + key)
                .tokenizer("t")
                .promptMode("llmperf")
                .seed(1L)
                .build();
        BenchmarkRun run = run(secret);
        String html = HtmlReport.render(run, RunMetrics.of(run, MetricsConfig.DEFAULT), "0.1.0-test", ENVIRONMENT);
        assertFalse(html.contains(key));
        assertFalse(html.contains("hunter2"));
        assertFalse(html.contains("bench:"));
        assertTrue(html.contains("https://llm.example.com:8443/v1?api_key=[REDACTED]"));
    }

    @Test
    void tokensOverTimeAccountsForEveryOutputToken() throws Exception {
        Document chart = parse(svg(page(), "tokens-over-time"));
        assertTrue(xpath(chart, "/svg/title").contains("1-s buckets, by content event times"));
        String caption = xpath(parse(page()), "//svg[@id='tokens-over-time']/following-sibling::p");
        assertTrue(caption.contains("\u03a3 = " + METRICS.totalOutputTokens() + " tokens"), caption);
        assertEquals(METRICS.outputTokensPerSecond(),
                Double.parseDouble(xpath(chart, "//g[contains(@class,'marker-average')]/@data-value")), 1e-9);
    }

    @Test
    void fileNameFollowsLlmperfsBase() {
        assertEquals("meta-llama-Llama-2-7b-chat-hf_550_150_report.html", HtmlReport.fileName(RUN.settings()));
    }
}
