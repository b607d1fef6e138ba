package io.llmperf4j.cli;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
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
 * A rate-sweep level whose schedule --timeout cut is judged on the arrivals it sent up to its last success's, the part
 * before the cut, not on the whole schedule's rate (the helper's finding: a cut level read 87.5 % of a rate its first part never had and
 * was called the saturation point). Against the simulator on 127.0.0.1; the level's share is recomputed from its
 * journal: (successes − 1) / (first to last success's end) over (arrivals − 1) / (first to last intended send) of
 * the arrivals sent up to the last success's.
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

        List<Double> intended = new ArrayList<>();
        List<Double> ends = new ArrayList<>();
        double lastSuccess = Double.NEGATIVE_INFINITY; // its intended send
        for (String line : Files.readAllLines(folder.resolve("requests.jsonl"))) {
            JsonNode r = JSON.readTree(line);
            double start = r.get("start_epoch_micros").asLong() / 1e6;
            double due = start - r.get("send_lag_nanos").asLong() / 1e9;
            intended.add(due);
            if (r.get("failure").isNull()) {
                ends.add(start + r.get("e2e_nanos").asLong() / 1e9);
                lastSuccess = Math.max(lastSuccess, due);
            }
        }
        assertEquals(sent, intended.size());
        assertTrue(ends.size() >= 10, "enough successes to be judged: " + ends.size());
        double until = lastSuccess;
        // the arrivals up to the last success's: those after it were in flight at the cut or never sent
        double sentRate = rate(intended.stream().filter(t -> t <= until + 1e-6).toList());
        double completion = rate(ends);
        double whole = open.get("scheduled_requests_per_s").asDouble();
        double share = level.get("achieved_share").asDouble();
        // the seed's first part runs at another rate than its whole schedule: the two readings differ
        assertTrue(Math.abs(sentRate / whole - 1) > 0.05, sentRate + " vs " + whole);
        assertEquals(completion / sentRate, share, 0.01 * share, "share over the arrivals sent: " + level);
        String row = run.out().lines().filter(l -> l.stripLeading().startsWith("40 ")).findFirst().orElseThrow();
        assertTrue(row.endsWith("timed out"), row);
        if (level.get("saturation_point").asBoolean()) {
            assertTrue(run.out().contains("saturation point: rate 40 req/s (successes ended at "), run::toString);
            assertTrue(run.out().contains("% of the scheduled rate of its arrivals up to its last success's ("
                    + (2000 - sent) + " not sent: its schedule was cut)"), run::toString);
        }
    }

    /** (n − 1) / (last − first), the schedule's own convention. */
    private static double rate(List<Double> instants) {
        double first = instants.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        double last = instants.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        return (instants.size() - 1) / (last - first);
    }
}
