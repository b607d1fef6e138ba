package io.llmperf4j.servermetrics.exposition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.servermetrics.Fixtures;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExpositionParserTest {

    private static final ExpositionFormat TEXT = ExpositionFormat.PROMETHEUS_TEXT_0_0_4;
    private static final ExpositionFormat OM = ExpositionFormat.OPENMETRICS_1_0;

    // ---- line forms, 0.0.4 ------------------------------------------------------------------------------------------

    @Test
    void helpAndTypeLinesDescribeTheFamily() {
        Exposition e = ExpositionParser.parse("""
                # HELP vllm:num_requests_running Number of requests in model execution batches.
                # TYPE vllm:num_requests_running gauge
                vllm:num_requests_running 4.0
                """, TEXT);
        MetricFamily f = e.family("vllm:num_requests_running");
        assertEquals(MetricType.GAUGE, f.type());
        assertEquals("Number of requests in model execution batches.", f.help());
        assertEquals(List.of(new Sample("vllm:num_requests_running", Labels.EMPTY, 4.0, null, 3)), f.samples());
    }

    @Test
    void helpTextUnescapesBackslashAndNewline() {
        Exposition e = ExpositionParser.parse("# HELP x a \\\\ b\\nc\n# TYPE x counter\nx 1\n", TEXT);
        assertEquals("a \\ b\nc", e.family("x").help());
    }

    @Test
    void helpWithoutTextIsEmpty() {
        assertEquals("", ExpositionParser.parse("# HELP x\nx 1\n", TEXT).family("x").help());
    }

    @Test
    void otherCommentsBlankLinesAndLeadingBlanksAreIgnored() {
        Exposition e = ExpositionParser.parse("""
                # a free comment
                #   UNIT is no 0.0.4 keyword, and HELP or TYPE only count as the first token

                \t x  1
                """, TEXT);
        assertEquals(1, e.families().size());
        assertEquals(1.0, e.family("x").samples().get(0).value());
        assertEquals(MetricType.UNTYPED, e.family("x").type());
    }

    @Test
    void sampleWithoutTypeIsUntyped() {
        Exposition e = ExpositionParser.parse("http_requests_total{code=\"200\"} 1027\n", TEXT);
        assertEquals(MetricType.UNTYPED, e.family("http_requests_total").type());
    }

    @Test
    void labelValuesUnescapeBackslashQuoteAndNewline() {
        Sample s = ExpositionParser.parse("""
                msdos_file_access_time_seconds{path="C:\\\\DIR\\\\FILE.TXT",error="Cannot find file:\\n\\"FILE.TXT\\""} 1.458255915e9
                """, TEXT).samples().get(0);
        assertEquals("C:\\DIR\\FILE.TXT", s.labels().get("path"));
        assertEquals("Cannot find file:\n\"FILE.TXT\"", s.labels().get("error"));
        assertEquals(1.458255915e9, s.value());
    }

    @Test
    void labelSetAllowsBlanksTrailingCommaAndBracesInValues() {
        Sample s = ExpositionParser.parse("x{ a = \"{}\" , b=\"=,\" , } 2\n", TEXT).samples().get(0);
        assertEquals(Labels.of("a", "{}", "b", "=,"), s.labels());
    }

    @Test
    void emptyLabelSetIsNoLabels() {
        assertEquals(Labels.EMPTY, ExpositionParser.parse("x{} 2\n", TEXT).samples().get(0).labels());
    }

    @Test
    void labelsAreSortedSoScrapesCompareEqual() {
        Sample a = ExpositionParser.parse("x{b=\"2\",a=\"1\"} 1\n", TEXT).samples().get(0);
        Sample b = ExpositionParser.parse("x{a=\"1\",b=\"2\"} 1\n", TEXT).samples().get(0);
        assertEquals(a.labels(), b.labels());
        assertEquals("a=\"1\",b=\"2\"", a.labels().render());
    }

    @Test
    void specialValuesAndExponents() {
        Exposition e = ExpositionParser.parse("""
                a +Inf
                b -Inf
                c NaN
                d 1.5e-3
                e -2E+2
                f .5
                g 7
                h inf
                i 1.
                j -Infinity
                """, TEXT);
        List<Sample> s = e.samples();
        assertEquals(Double.POSITIVE_INFINITY, s.get(0).value());
        assertEquals(Double.NEGATIVE_INFINITY, s.get(1).value());
        assertTrue(Double.isNaN(s.get(2).value()));
        assertEquals(0.0015, s.get(3).value());
        assertEquals(-200.0, s.get(4).value());
        assertEquals(0.5, s.get(5).value());
        assertEquals(7.0, s.get(6).value());
        assertEquals(Double.POSITIVE_INFINITY, s.get(7).value());
        assertEquals(1.0, s.get(8).value());
        assertEquals(Double.NEGATIVE_INFINITY, s.get(9).value());
    }

    @Test
    void timestampsAreMillisecondsIn004() {
        Exposition e = ExpositionParser.parse("""
                http_requests_total{method="post",code="200"} 1027 1395066363000
                old_metric 3 -1
                no_timestamp 4
                """, TEXT);
        assertEquals(1395066363000L, e.samples().get(0).timestampMillis());
        assertEquals(-1L, e.samples().get(1).timestampMillis());
        assertNull(e.samples().get(2).timestampMillis());
    }

    @Test
    void missingFinalNewlineIsAccepted() {
        assertEquals(1, ExpositionParser.parse("x 1", TEXT).sampleCount());
    }

    @Test
    void emptyBodyHasNoFamilies() {
        assertEquals(0, ExpositionParser.parse("", TEXT).families().size());
    }

    @Test
    void histogramKeepsBucketsSumAndCountInOneFamily() {
        Exposition e = ExpositionParser.parse("""
                # HELP http_request_duration_seconds A histogram of the request duration.
                # TYPE http_request_duration_seconds histogram
                http_request_duration_seconds_bucket{le="0.05"} 24054
                http_request_duration_seconds_bucket{le="0.1"} 33444
                http_request_duration_seconds_bucket{le="0.2"} 100392
                http_request_duration_seconds_bucket{le="0.5"} 129389
                http_request_duration_seconds_bucket{le="1"} 133988
                http_request_duration_seconds_bucket{le="+Inf"} 144320
                http_request_duration_seconds_sum 53423
                http_request_duration_seconds_count 144320
                """, TEXT);
        assertEquals(1, e.families().size());
        MetricFamily f = e.family("http_request_duration_seconds");
        assertEquals(MetricType.HISTOGRAM, f.type());
        assertEquals(8, f.samples().size());
        assertEquals("+Inf", f.samples().get(5).labels().get("le"));
    }

    @Test
    void summaryKeepsQuantilesSumAndCount() {
        Exposition e = ExpositionParser.parse("""
                # TYPE rpc_duration_seconds summary
                rpc_duration_seconds{quantile="0.01"} 3102
                rpc_duration_seconds{quantile="0.5"} 4773
                rpc_duration_seconds{quantile="0.99"} 76656
                rpc_duration_seconds_sum 1.7560473e+07
                rpc_duration_seconds_count 2693
                """, TEXT);
        assertEquals(MetricType.SUMMARY, e.family("rpc_duration_seconds").type());
        assertEquals(5, e.family("rpc_duration_seconds").samples().size());
    }

    @Test
    void familyWithMetadataAndNoSamplesIsKept() {
        Exposition e = ExpositionParser.parse("# HELP x unused\n# TYPE x counter\ny 1\n", TEXT);
        assertEquals(List.of(), e.family("x").samples());
        assertEquals(1, e.family("y").samples().size());
    }

    // ---- line forms, OpenMetrics ------------------------------------------------------------------------------------

    @Test
    void openMetricsCounterFamilyOmitsTotalWhileSamplesKeepIt() {
        Exposition e = ExpositionParser.parse("""
                # TYPE vllm:generation_tokens counter
                # UNIT vllm:generation_tokens tokens
                # HELP vllm:generation_tokens Number of \\"generation\\" tokens processed.
                vllm:generation_tokens_total{model_name="m"} 8000.0 1520879607.789
                vllm:generation_tokens_created{model_name="m"} 1.7645e+09
                # EOF
                """, OM);
        MetricFamily f = e.family("vllm:generation_tokens");
        assertEquals(MetricType.COUNTER, f.type());
        assertEquals("tokens", f.unit());
        assertEquals("Number of \"generation\" tokens processed.", f.help());
        assertEquals("vllm:generation_tokens_total", f.samples().get(0).name());
        assertEquals(1520879607789L, f.samples().get(0).timestampMillis());
        assertEquals(OM, e.format());
    }

    @Test
    void openMetricsExemplarsAreSkipped() {
        Exposition e = ExpositionParser.parse("""
                # TYPE foo histogram
                foo_bucket{le="0.01"} 0
                foo_bucket{le="0.1"} 8 # {trace_id="KOO5S4vxi0o"} 0.067 1520879607.789
                foo_bucket{le="+Inf"} 17 1520879607.000 # {trace_id="oHg5SJYRHA0"} 9.8
                foo_count 17
                foo_sum 324789.3
                # EOF
                """, OM);
        List<Sample> s = e.family("foo").samples();
        assertEquals(8.0, s.get(1).value());
        assertNull(s.get(1).timestampMillis());
        assertEquals(17.0, s.get(2).value());
        assertEquals(1520879607000L, s.get(2).timestampMillis());
    }

    @Test
    void openMetricsUnknownInfoStatesetAndGaugeHistogram() {
        Exposition e = ExpositionParser.parse("""
                # TYPE a unknown
                a 1
                # TYPE build info
                build_info{version="0.11.0"} 1
                # TYPE state stateset
                state{state="ready"} 1
                # TYPE q gaugehistogram
                q_bucket{le="1"} 2
                q_bucket{le="+Inf"} 3
                q_gcount 3
                q_gsum 4.5
                # EOF""", OM);
        assertEquals(MetricType.UNTYPED, e.family("a").type());
        assertEquals(MetricType.INFO, e.family("build").type());
        assertEquals(MetricType.STATESET, e.family("state").type());
        assertEquals(MetricType.GAUGE_HISTOGRAM, e.family("q").type());
        assertEquals(4, e.family("q").samples().size());
    }

    @Test
    void formatIsDetectedFromEofAndContentType() {
        assertEquals(OM, ExpositionFormat.detect("a 1\n# EOF\n"));
        assertEquals(OM, ExpositionFormat.detect("# EOF"));
        assertEquals(TEXT, ExpositionFormat.detect("a 1\n"));
        assertEquals(OM, ExpositionFormat.fromContentType("application/openmetrics-text; version=1.0.0; charset=utf-8"));
        assertEquals(TEXT, ExpositionFormat.fromContentType("text/plain; version=0.0.4; charset=utf-8"));
        assertEquals(TEXT, ExpositionFormat.fromContentType("Text/Plain"));
        assertNull(ExpositionFormat.fromContentType("text/html; charset=utf-8"));
        assertNull(ExpositionFormat.fromContentType(null));
    }

    // ---- real servers -----------------------------------------------------------------------------------------------

    @Test
    void vllmPrometheusClientOutput() {
        Exposition e = ExpositionParser.parse(Fixtures.exposition("vllm-0.0.4.txt"), TEXT);
        MetricFamily ttft = e.family("vllm:time_to_first_token_seconds");
        assertEquals(MetricType.HISTOGRAM, ttft.type());
        assertEquals(22 + 1 + 2, ttft.samples().size());
        assertEquals(MetricType.COUNTER, e.family("vllm:generation_tokens_total").type());
        assertEquals(4.2421665e7, e.family("vllm:generation_tokens_total").samples().get(0).value());
        assertEquals(MetricType.GAUGE, e.family("vllm:generation_tokens_created").type());
        Sample running = e.family("vllm:num_requests_running").samples().get(0);
        assertEquals(Labels.of("engine", "0", "model_name", "meta-llama/Llama-3.1-8B-Instruct"), running.labels());
        assertEquals(3, e.family("vllm:request_success_total").samples().size());
    }

    @Test
    void vllmOpenMetricsOutputHasTheSameSamplesAsItsTextOutputLessCreationTimes() {
        Exposition text = ExpositionParser.parse(Fixtures.exposition("vllm-0.0.4.txt")).withoutCreated();
        Exposition om = ExpositionParser.parse(Fixtures.exposition("vllm-openmetrics.txt")).withoutCreated();
        assertEquals(OM, om.format());
        assertEquals(strip(text.samples()), strip(om.samples()));
        assertTrue(text.samples().stream().noneMatch(s -> s.name().endsWith("_created")));
    }

    @Test
    void metricThatOnlyEndsInCreatedIsKept() {
        Exposition e = ExpositionParser.parse("# TYPE jobs_created gauge\njobs_created 3\n", TEXT).withoutCreated();
        assertEquals(1, e.sampleCount());
    }

    @Test
    void sglangOutput() {
        Exposition e = ExpositionParser.parse(Fixtures.exposition("sglang-0.0.4.txt"));
        assertEquals(24.0, e.family("sglang:num_running_reqs").samples().get(0).value());
        assertEquals("0", e.family("sglang:num_running_reqs").samples().get(0).labels().get("tp_rank"));
        assertEquals(MetricType.HISTOGRAM, e.family("sglang:e2e_request_latency_seconds").type());
        assertEquals(20000.0, e.family("sglang:cached_tokens_total").samples().get(0).value());
    }

    @Test
    void tgiOutputWithBlankLinesAndNoHelp() {
        Exposition e = ExpositionParser.parse(Fixtures.exposition("tgi-0.0.4.txt"));
        assertEquals(TEXT, e.format());
        assertEquals(MetricType.COUNTER, e.family("tgi_request_count").type());
        assertNull(e.family("tgi_request_count").help());
        assertEquals(8, e.family("tgi_request_duration").samples().size());
        assertEquals(73800.0, e.family("tgi_request_generated_tokens").samples().get(4).value());
    }

    @Test
    void writerOutputParsesBackUnchanged() {
        Exposition e = ExpositionParser.parse(Fixtures.exposition("vllm-0.0.4.txt"));
        Exposition again = ExpositionParser.parse(ExpositionWriter.write(e));
        assertEquals(strip(e.samples()), strip(again.samples()));
        assertEquals(e.family("vllm:kv_cache_usage_perc").help(), again.family("vllm:kv_cache_usage_perc").help());
    }

    @Test
    void openMetricsWrittenAs004KeepsEverySampleAndType() {
        Exposition om = ExpositionParser.parse(Fixtures.exposition("vllm-openmetrics.txt"));
        Exposition text = ExpositionParser.parse(ExpositionWriter.write(om), TEXT);
        assertEquals(strip(om.samples()), strip(text.samples()));
        assertEquals(MetricType.COUNTER, text.family("vllm:generation_tokens_total").type());
        assertEquals(MetricType.GAUGE, text.family("vllm:generation_tokens_created").type());
        assertEquals(strip(ExpositionParser.parse(Fixtures.exposition("vllm-0.0.4.txt")).samples()),
                strip(text.samples()), "the same metrics as the server's own 0.0.4 output");
        Exposition odd = ExpositionParser.parse("""
                # TYPE build info
                build_info{version="1"} 1
                # TYPE q gaugehistogram
                q_bucket{le="+Inf"} 3
                q_gcount 3
                q_gsum 4.5
                # EOF
                """);
        assertEquals(strip(odd.samples()), strip(ExpositionParser.parse(ExpositionWriter.write(odd), TEXT).samples()));
    }

    private static List<Sample> strip(List<Sample> samples) {
        return samples.stream().map(s -> new Sample(s.name(), s.labels(), s.value())).toList();
    }

    // ---- malformed input: line number and reason -------------------------------------------------------------------

    private static MalformedExpositionException malformed(String text, ExpositionFormat format) {
        return assertThrows(MalformedExpositionException.class, () -> ExpositionParser.parse(text, format));
    }

    private static void assertMalformed(String text, ExpositionFormat format, int line, String reasonPart) {
        MalformedExpositionException e = malformed(text, format);
        assertEquals(line, e.lineNumber(), e.getMessage());
        assertTrue(e.reason().contains(reasonPart), e.getMessage());
        assertTrue(e.getMessage().startsWith("line " + line + ": "), e.getMessage());
    }

    @Test
    void malformedLinesNameTheirLineAndReason() {
        assertMalformed("a 1\nb\n", TEXT, 2, "sample without a value");
        assertMalformed("a 1\nb  \n", TEXT, 2, "sample without a value");
        assertMalformed("a one\n", TEXT, 1, "invalid value 'one'");
        assertMalformed("a 1.0d\n", TEXT, 1, "invalid value '1.0d'");
        assertMalformed("a 0x1p3\n", TEXT, 1, "invalid value");
        assertMalformed("a .\n", TEXT, 1, "invalid value '.'");
        assertMalformed("a 1e\n", TEXT, 1, "invalid value '1e'");
        assertMalformed("a 1e+\n", TEXT, 1, "invalid value '1e+'");
        assertMalformed("a +-1\n", TEXT, 1, "invalid value '+-1'");
        assertMalformed("a Infinityx\n", TEXT, 1, "invalid value");
        assertMalformed("a \u0661\n", TEXT, 1, "invalid value");
        assertMalformed("a 1 12.5\n", TEXT, 1, "invalid timestamp '12.5'");
        assertMalformed("a 1 99999999999999999999\n", TEXT, 1, "out of range");
        assertMalformed("a 1 2 3\n", TEXT, 1, "unexpected text after the timestamp");
        assertMalformed("a{b=\"1\" 1\n", TEXT, 1, "expected ',' or '}' after label b");
        assertMalformed("a{b=\"1} 1\n", TEXT, 1, "value of label b is not closed");
        assertMalformed("a{b=1} 1\n", TEXT, 1, "value of label b is not in double quotes");
        assertMalformed("a{b} 1\n", TEXT, 1, "expected '=' after label name b");
        assertMalformed("a{1b=\"x\"} 1\n", TEXT, 1, "invalid label name");
        assertMalformed("a{b=\"\\t\"} 1\n", TEXT, 1, "invalid escape \\t");
        assertMalformed("a{b=\"1\",b=\"2\"} 1\n", TEXT, 1, "label b appears twice");
        assertMalformed("a{b=\"1\"\n", TEXT, 1, "label set is not closed");
        assertMalformed("1a 1\n", TEXT, 1, "expected a metric name");
        assertMalformed("a 1\r\n", TEXT, 1, "carriage return");
        assertMalformed("a{b=\"1\"}1\n", TEXT, 1, "expected a blank before the value");
    }

    @Test
    void malformedMetadataNamesItsLineAndReason() {
        assertMalformed("# TYPE a gauge\n# TYPE a counter\na 1\n", TEXT, 2, "second # TYPE for a (first on line 1)");
        assertMalformed("# HELP a x\n# HELP a y\n", TEXT, 2, "second # HELP for a");
        assertMalformed("# TYPE a gaugehistogram\n", TEXT, 1, "unknown metric type 'gaugehistogram'");
        assertMalformed("# TYPE a\n", TEXT, 1, "unknown metric type ''");
        assertMalformed("# TYPE 9a gauge\n", TEXT, 1, "invalid metric name '9a'");
        assertMalformed("# HELP\n", TEXT, 1, "# HELP without a metric name");
        assertMalformed("# HELP a bad \\t escape\n", TEXT, 1, "invalid escape \\t in HELP text");
        assertMalformed("# HELP a quote \\\" is not a 0.0.4 escape\n", TEXT, 1, "invalid escape \\\"");
        assertMalformed("a 1\n# TYPE a gauge\n", TEXT, 2, "# TYPE for a after its first sample (line 1)");
    }

    @Test
    void familiesMustBeTogether() {
        assertMalformed("a 1\nb 1\na{x=\"1\"} 2\n", TEXT, 3, "sample of a after its family ended (it began on line 1)");
        assertMalformed("a 1\nb 1\n# HELP a late\n", TEXT, 3, "metadata for a after its family ended");
        assertMalformed("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nb 1\nh_sum 2\n", TEXT, 4, "sample of h after");
        assertMalformed("# TYPE h histogram\nh 1\n", TEXT, 2, "does not fit its family's type histogram");
        assertMalformed("a 1\na 2\n", TEXT, 2, "duplicate sample a{} (first on line 1)");
    }

    @Test
    void brokenHistogramsAreRejected() {
        assertMalformed("# TYPE h histogram\nh_bucket 1\n", TEXT, 2, "histogram bucket without an le label");
        assertMalformed("# TYPE h histogram\nh_bucket{le=\"x\"} 1\n", TEXT, 2, "invalid le=\"x\"");
        assertMalformed("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_count 1\n", TEXT, 2, "has no le=\"+Inf\" bucket");
        assertMalformed("# TYPE h histogram\nh_bucket{le=\"1\"} 5\nh_bucket{le=\"2\"} 3\nh_bucket{le=\"+Inf\"} 5\n",
                TEXT, 3, "histogram buckets are cumulative");
        assertMalformed("# TYPE h histogram\nh_bucket{le=\"+Inf\"} 5\nh_count 4\n", TEXT, 3,
                "h_count (4.0) differs from the le=\"+Inf\" bucket (5.0)");
        assertMalformed("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"1.0\"} 1\nh_bucket{le=\"+Inf\"} 1\n",
                TEXT, 3, "two buckets with le=1.0");
        assertMalformed("# TYPE s summary\ns 1\n", TEXT, 2, "summary quantile sample without a valid quantile label");
    }

    @Test
    void histogramWithOnlySumAndCountIsAccepted() {
        Exposition e = ExpositionParser.parse("# TYPE h histogram\nh_sum 2.5\nh_count 3\n", TEXT);
        assertEquals(2, e.sampleCount());
    }

    @Test
    void malformedOpenMetrics() {
        assertMalformed("a 1\n", OM, 1, "does not end with # EOF");
        assertMalformed("a 1\n# EOF\nb 2\n", OM, 3, "text after # EOF");
        assertMalformed("a 1\n\n# EOF\n", OM, 2, "empty line");
        assertMalformed("# free comment\n# EOF\n", OM, 1, "unknown comment");
        assertMalformed("a  1\n# EOF\n", OM, 1, "after one space");
        assertMalformed("a{b=\"1\",} 1\n# EOF\n", OM, 1, "trailing comma");
        assertMalformed("a{b = \"1\"} 1\n# EOF\n", OM, 1, "expected '=' after label name b");
        assertMalformed("a 1 NaN\n# EOF\n", OM, 1, "invalid timestamp 'NaN' (seconds)");
        assertMalformed("a 1 2 3\n# EOF\n", OM, 1, "unexpected text after the timestamp");
        assertMalformed("a 1 # trace\n# EOF\n", OM, 1, "malformed exemplar");
        assertMalformed("# TYPE a untyped\n# EOF\n", OM, 1, "unknown metric type 'untyped'");
        assertMalformed("# TYPE a_seconds gauge\n# UNIT a_seconds bytes\n# EOF\n", OM, 2, "not a suffix");
        assertMalformed("# TYPE c counter\nc 1\n# EOF\n", OM, 2, "does not fit its family's type counter");
    }
}
