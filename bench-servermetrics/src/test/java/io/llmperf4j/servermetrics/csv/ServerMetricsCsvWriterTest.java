package io.llmperf4j.servermetrics.csv;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.llmperf4j.servermetrics.exposition.ExpositionParser;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerMetricsCsvWriterTest {

    @Test
    void oneRowPerSamplePerScrapeAndOneRowPerGap(@TempDir Path dir) throws Exception {
        ServerMetricsTimeline.Recorder r = ServerMetricsTimeline.recorder();
        String body = """
                # TYPE vllm:num_requests_running gauge
                vllm:num_requests_running{model_name="m",engine="0"} 3
                # TYPE vllm:generation_tokens_total counter
                vllm:generation_tokens_total{model_name="m"} 4.2421665e+07
                # TYPE vllm:generation_tokens_created gauge
                vllm:generation_tokens_created{model_name="m"} 1.7645e+09
                odd{path="a,\\"b\\""} NaN
                """;
        r.recordScrape(-250_000_000L, 1, ExpositionParser.parse(body));
        r.recordFailure(1_000_000_500L, 1, "HTTP 500");
        r.recordScrape(2_000_000_000L, 1, ExpositionParser.parse("vllm:num_requests_running 0.000125\n"));
        Path file = ServerMetricsCsvWriter.fileFor(dir, "run1");
        ServerMetricsCsvWriter.write(r.snapshot(), file);

        assertEquals(dir.resolve("run1_server_metrics.csv"), file);
        assertEquals(String.join("\r\n",
                "time_s,name,labels,value",
                "-0.250000,vllm:num_requests_running,\"engine=\"\"0\"\",model_name=\"\"m\"\"\",3",
                "-0.250000,vllm:generation_tokens_total,\"model_name=\"\"m\"\"\",42421665",
                "-0.250000,odd,\"path=\"\"a,\\\"\"b\\\"\"\"\"\",NaN",
                "1.000001,scrape_failed,\"reason=\"\"HTTP 500\"\"\",",
                "2.000000,vllm:num_requests_running,,0.000125",
                ""), Files.readString(file, StandardCharsets.UTF_8));
    }
}
