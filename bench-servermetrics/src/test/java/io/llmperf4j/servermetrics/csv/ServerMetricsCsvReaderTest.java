package io.llmperf4j.servermetrics.csv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.llmperf4j.servermetrics.Fixtures;
import io.llmperf4j.servermetrics.exposition.ExpositionParser;
import io.llmperf4j.servermetrics.summary.ServerSideSummarizer;
import io.llmperf4j.servermetrics.summary.ServerSideSummary;
import io.llmperf4j.servermetrics.summary.ServerTimeSeries;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerMetricsCsvReaderTest {

    private static final long S = 1_000_000_000L;

    @Test
    void fileReadsBackToTheSameSummaryChartsAndFile(@TempDir Path dir) throws Exception {
        String a = Fixtures.exposition("vllm-0.0.4.txt");
        String b = a.replace("} 4.2421665e+07", "} 4.2431665e+07")
                .replace("vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"meta-llama/Llama-3.1-8B-Instruct\"} 38400.0",
                        "vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"meta-llama/Llama-3.1-8B-Instruct\"} 38500.0")
                .replace("vllm:prefix_cache_queries_total{engine=\"0\",model_name=\"meta-llama/Llama-3.1-8B-Instruct\"} 51200.0",
                        "vllm:prefix_cache_queries_total{engine=\"0\",model_name=\"meta-llama/Llama-3.1-8B-Instruct\"} 51600.0");
        // the file keeps no exchange durations (they read back as 0, not known): recorded without one, the rebuilt
        // summary is the run's; with one, see theExchangeDurationsAreNotKnownAfterTheFile
        ServerMetricsTimeline.Recorder r = ServerMetricsTimeline.recorder();
        r.recordScrape(-S / 4, 0, ExpositionParser.parse(a));
        r.recordFailure(S, 0, "timed out after 5 s, \"quoted\"");
        r.recordScrape(2 * S + 123_456_000L, 0, ExpositionParser.parse(b));
        ServerMetricsTimeline original = r.snapshot();
        Path file = ServerMetricsCsvWriter.fileFor(dir, "run");
        ServerMetricsCsvWriter.write(original, file);

        ServerMetricsTimeline read = ServerMetricsCsvReader.read(file);
        long from = -S / 4;
        long to = 2 * S + 123_456_000L;
        assertEquals(ServerSideSummarizer.summarize(original, from, to), ServerSideSummarizer.summarize(read, from, to));
        assertEquals(ServerSideSummarizer.summarize(original, 0, S), ServerSideSummarizer.summarize(read, 0, S));
        assertEquals(10000L, ServerSideSummarizer.summarize(read, from, to).generationTokens());
        assertEquals(0.25, ServerSideSummarizer.summarize(read, from, to).prefixCacheHitRate());
        assertEquals(ServerTimeSeries.of(original), ServerTimeSeries.of(read));
        assertEquals(original.warnings(), read.warnings());
        Path again = dir.resolve("again.csv");
        ServerMetricsCsvWriter.write(read, again);
        assertEquals(Files.readString(file), Files.readString(again));
    }

    @Test
    void theExchangeDurationsAreNotKnownAfterTheFile(@TempDir Path dir) throws Exception {
        String a = Fixtures.exposition("vllm-0.0.4.txt");
        ServerMetricsTimeline.Recorder r = ServerMetricsTimeline.recorder();
        r.recordScrape(-S / 4, 3_000_000L, ExpositionParser.parse(a));
        r.recordScrape(2 * S, 5_000_000L, ExpositionParser.parse(a));
        ServerMetricsTimeline original = r.snapshot();
        Path file = ServerMetricsCsvWriter.fileFor(dir, "run");
        ServerMetricsCsvWriter.write(original, file);
        ServerSideSummary run = ServerSideSummarizer.summarize(original, 0, S);
        ServerSideSummary rebuilt = ServerSideSummarizer.summarize(ServerMetricsCsvReader.read(file), 0, S);
        assertEquals(0.003, run.openingScrapeS(), 1e-12);
        assertEquals(0.005, run.closingScrapeS(), 1e-12);
        assertNull(rebuilt.openingScrapeS(), "not 0 s: the file does not say");
        assertNull(rebuilt.closingScrapeS());
        assertEquals(run.generationTokens(), rebuilt.generationTokens());
    }

    @Test
    void badRowsNameTheRow() {
        IOException e = assertThrows(IOException.class, () -> ServerMetricsCsvReader.read(new StringReader(
                "time_s,name,labels,value\r\n1.0,up,,1\r\n2.0,up,\"a=1\",1\r\n"), "x.csv"));
        assertEquals("x.csv row 2: invalid label set 'a=1': value of label a is not in double quotes", e.getMessage());
        e = assertThrows(IOException.class, () -> ServerMetricsCsvReader.read(new StringReader(
                "time_s,name,labels,value\r\nsoon,up,,1\r\n"), "x.csv"));
        assertEquals("x.csv row 1: invalid time_s 'soon'", e.getMessage());
        e = assertThrows(IOException.class, () -> ServerMetricsCsvReader.read(new StringReader(
                "time,name\r\n"), "x.csv"));
        assertEquals("x.csv: header [time, name] is not [time_s, name, labels, value]", e.getMessage());
    }
}
