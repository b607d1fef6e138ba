package io.llmperf4j.cli;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.apache.commons.math3.stat.regression.OLSMultipleLinearRegression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rate-sweep level whose schedule --timeout cut is judged on the part before the cut, not on the whole schedule
 * (the helper's finding: a cut level read 87.5 % of a rate its first part never had and was called the saturation
 * point). Against the simulator on 127.0.0.1; the level's share is recomputed from its journal: 1 / the least-squares
 * slope of the successes' ends against their intended sends, their output tokens a second regressor ({@code KeepUp}),
 * over the successes due no later than the last success's end minus the longest latency (a later success is one
 * whose latency happened to be short: the cut censored the others).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SweepCutLevelShareTest {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(5))
            .interTokenDelay(Duration.ofMillis(1)));

    @Test
    void aCutLevelIsSetAgainstTheRateOfTheArrivalsBeforeTheCut(@TempDir Path dir) throws Exception {
        CliRun run = CliRun.of(server.env(), "token-benchmark", "--model", "m", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "4", "--stddev-output-tokens", "0",
                "--no-client-warmup", "--no-server-metrics", "--rate-sweep", "40,50", "--arrival", "poisson",
                "--arrival-seed", "11", "--max-num-completed-requests", "2000", "--timeout", "1",
                "--sleep-between", "0", "--results-dir", dir.toString());
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode sweep = JSON.readTree(dir.resolve("m_40_4_sweep.json").toFile());
        JsonNode level = sweep.get("levels").get(0);
        Path folder = dir.resolve("rate_40");
        JsonNode open = JSON.readTree(folder.resolve("m_40_4_open_loop.json").toFile());
        assertTrue(open.get("timed_out").asBoolean(), open::toString);
        int sent = open.get("requests_sent").asInt();
        assertEquals(2000 - sent, open.get("arrivals_not_sent").asInt(), open::toString);

        List<double[]> successes = new ArrayList<>(); // intended send, end, output tokens
        int recorded = 0;
        for (String line : Files.readAllLines(folder.resolve("requests.jsonl"))) {
            JsonNode r = JSON.readTree(line);
            recorded++;
            double start = r.get("start_epoch_micros").asLong() / 1e6;
            double due = start - r.get("send_lag_nanos").asLong() / 1e9;
            if (r.get("failure").isNull()) {
                JsonNode usage = r.get("usage_completion_tokens");
                double tokens = usage == null || usage.isNull() ? r.get("output_tokens").asDouble() : usage.asDouble();
                successes.add(new double[] {due, start + r.get("e2e_nanos").asLong() / 1e9, tokens});
            }
        }
        assertEquals(sent, recorded);
        assertTrue(successes.size() >= 10, "enough successes to be judged: " + successes.size());
        double lastEnd = successes.stream().mapToDouble(s -> s[1]).max().orElseThrow();
        double longest = successes.stream().mapToDouble(s -> s[1] - s[0]).max().orElseThrow();
        List<double[]> fitted = successes.stream().filter(s -> s[0] <= lastEnd - longest + 1e-6).toList();
        double origin = fitted.stream().mapToDouble(s -> s[0]).min().orElseThrow();
        double[] ends = fitted.stream().mapToDouble(s -> s[1] - origin).toArray();
        // 4 tokens each: one length, so the slope is fitted alone, as KeepUp does then
        boolean lengths = fitted.stream().mapToDouble(s -> s[2]).distinct().count() > 1;
        double[][] x = fitted.stream().map(s -> lengths ? new double[] {s[0] - origin, s[2]}
                : new double[] {s[0] - origin}).toArray(double[][]::new);
        OLSMultipleLinearRegression ols = new OLSMultipleLinearRegression();
        ols.newSampleData(ends, x);
        double share = level.get("achieved_share").asDouble();
        assertEquals(1 / ols.estimateRegressionParameters()[1], share, 1e-3 * share, "share before the cut: " + level);
        assertTrue(fitted.size() < successes.size() || successes.size() == sent, "the cut's late successes left out");
        String row = run.out().lines().filter(l -> l.stripLeading().startsWith("40 ")).findFirst().orElseThrow();
        assertTrue(row.endsWith("timed out"), row);
        if (level.get("saturation_point").asBoolean()) {
            assertTrue(run.out().contains("saturation point: rate 40 req/s (successes ended at "), run::toString);
            assertTrue(run.out().contains(" of the scheduled rate of its arrivals due before the cut ("
                    + (2000 - sent) + " not sent: its schedule was cut)"), run::toString);
        }
    }
}
