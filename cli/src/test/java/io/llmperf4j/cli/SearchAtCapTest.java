package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A capacity search's rate level held back by its own cap is judged as the single run's keep-up verdict judges it
 * (AT_CAP, AtCapCommandTest): {@code --max-concurrency 1} in front of the simulator whose requests take ~120 ms
 * carries under 10 req/s, and 40 are offered, so every arrival after the first waits for the one slot and its TTFT
 * from the intended send grows by seconds while the server answers each in ~20 ms. The search called that level's
 * failure the server's ("FAIL after ... requests" and nothing more); it now says it was held at the cap, in the
 * single run's words, and that the capacity found is the cap's. Against the simulator on 127.0.0.1.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SearchAtCapTest {

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(20))
            .interTokenDelay(Duration.ofMillis(5)));

    @Test
    void aLevelHeldAtTheCapIsNotTheServiceFallingBehind(@TempDir Path dir) {
        CliRun run = CliRun.of(server.env(), "token-benchmark", "--model", "m", "--mean-input-tokens", "40",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "20", "--stddev-output-tokens", "0",
                "--max-num-completed-requests", "40", "--slo", "ttft_p90<=500ms", "--search", "rate", "--arrival",
                "constant", "--search-min", "40", "--search-max", "40", "--search-level-max", "40",
                "--search-no-repeat", "--max-concurrency", "1", "--no-server-metrics", "--results-dir",
                dir.toString());
        assertEquals(0, run.exitCode(), run::toString);
        String level = run.err().lines().filter(l -> l.startsWith("llmperf4j: search level 1 ")).findFirst()
                .orElseThrow(() -> new AssertionError("no level line\n" + run));
        assertTrue(level.startsWith("llmperf4j: search level 1 (rate 40): FAIL"), level);
        assertTrue(level.contains("; only by the waits for a slot at the cap: rate 40: from the actual send "
                + "ttft_p90<=500ms is met (estimate "), level);
        assertTrue(level.contains("; held at the cap: sent late because 1 request was in flight at the cap "
                + "(--max-concurrency 1; send lag p90 "), level);
        assertTrue(level.contains(": the service kept pace with what it was sent, 1 at a time, so the rate was the "
                + "cap's (its requests in flight over their latency), neither a backlog of the service's nor the "
                + "client's lag; not a saturation point nor a knee: raise --max-concurrency to tell whether the "
                + "service keeps up with more in flight, or lower the rate"), level);
        assertTrue(run.out().contains("held at the cap (--max-concurrency 1) at rate 40: that level failed only by "
                + "the waits for a slot at the cap (rate 40: "), run::toString);
        assertTrue(run.out().contains("); not the service falling behind: the search counted it as a failure, so the "
                + "capacity found is the cap's, a lower bound for the service"), run::toString);
        assertFalse(run.out().contains("client fell behind") || run.err().contains("client's send lag"),
                run::toString);
    }
}
