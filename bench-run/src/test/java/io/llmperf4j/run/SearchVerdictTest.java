package io.llmperf4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.report.metrics.SloObjectives;
import io.llmperf4j.run.search.LevelLimit;
import io.llmperf4j.run.search.SearchPlan;
import io.llmperf4j.run.search.SearchResult;
import io.llmperf4j.server.FaultKind;
import io.llmperf4j.server.FaultPlan;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The search's verdict in words: below the range at concurrency 1, and whose goodput it quotes. */
class SearchVerdictTest {

    private static SearchResult search(SimulatedServer server, Path dir, String slo, double min,
                                       ByteArrayOutputStream out) {
        return search(server, dir, slo, min, out, new ByteArrayOutputStream());
    }

    private static SearchResult search(SimulatedServer server, Path dir, String slo, double min,
                                       ByteArrayOutputStream out, ByteArrayOutputStream err) {
        SloObjectives objectives = SloObjectives.parse(slo);
        SearchPlan plan = SearchPlan.of(SearchPlan.Mode.CONCURRENCY, objectives.objectives())
                .withRange(min, 4).withLevelMax(LevelLimit.requests(20)).withMinSamples(10).withPause(Duration.ZERO);
        return SearchLevelRatesTest.search(server, dir, objectives, plan, out, err);
    }

    @Test
    void belowTheRangeAtConcurrencyOneSaysTheObjectiveIsNotMetWithOneRequestInFlight(@TempDir Path dir) {
        // half the requests fail with HTTP 500 (seeded): error_rate<=1% fails at concurrency 1 already
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(1))
                .faultPlan(FaultPlan.random(0.5, Map.of(FaultKind.HTTP_500, 1.0), 3)).build())) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            SearchResult result = search(server, dir, "error_rate<=1%", 1, out);
            assertEquals("below_range", result.outcome(), out::toString);
            String verdict = result.document().verdict();
            assertTrue(verdict.startsWith("capacity below the range: concurrency 1 (the first level) already fails "
                    + "error_rate<=1%"), verdict);
            assertTrue(verdict.contains("; the objective is not met even with one request in flight (a lower "
                    + "--search-min cannot help: look at the server, or the objective)"), verdict);
            assertTrue(!verdict.contains("lower --search-min;") && !verdict.endsWith("lower --search-min"), verdict);
        }
    }

    /**
     * A level the verdict ends early cancels the requests still in flight: the search says how many and where the
     * level's files count them (as a plain run counts requests cancelled at its end), and the two agree; its progress
     * line counts them as cancelled, not failed.
     */
    @Test
    void requestsCancelledAtALevelsEarlyStopAreCountedAndExplained(@TempDir Path dir) throws Exception {
        // failures are instant, successes take 8 x 50 ms: at the verdict a closed loop of 4 has successes in flight
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(50))
                .faultPlan(FaultPlan.random(0.5, Map.of(FaultKind.HTTP_500, 1.0), 3)).build())) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            SearchResult result = search(server, dir, "error_rate<=1%,e2e_p90<=60s", 4, out, err);
            assertEquals("below_range", result.outcome(), out::toString);
            String console = err.toString(StandardCharsets.UTF_8);
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("search level 1 \\(concurrency 4\\): FAIL "
                    + "after \\d+ requests, [^\\n]*; (\\d+) requests? in flight cancelled when the verdict ended the "
                    + "level early: censored, not in the verdict; the level's files count (it|them) as a plain run "
                    + "counts requests cancelled at its end").matcher(console);
            assertTrue(m.find(), console);
            int cancelled = Integer.parseInt(m.group(1));
            assertTrue(cancelled > 0, console);
            Path level = dir.resolve(result.document().levels().get(0).resultsDir());
            com.fasterxml.jackson.databind.JsonNode summary = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(level.resolve("sim_60_8_llmperf4j_summary.json").toFile());
            assertEquals(cancelled, summary.at("/errors/by_kind/CANCELLED").asInt(), summary.get("errors")::toString);
            assertEquals(summary.at("/goodput/recorded_requests").asInt() - cancelled,
                    summary.at("/goodput/judged_requests").asInt(), "the level's goodput censors them too");
            assertTrue(summary.get("warnings").toString().contains("REQUESTS_CANCELLED"), summary::toString);
            // the search's own warning says its verdict ended the level, not a run's timeout
            assertTrue(out.toString(StandardCharsets.UTF_8).contains("warning: [REQUESTS_CANCELLED] at concurrency 4: "
                    + cancelled + (cancelled == 1 ? " request was" : " requests were") + " in flight when the search "
                    + "ended the level early on its verdict and "), out::toString);
            // the level's last progress line counts them as cancelled too, and only the server's 500s as failed
            String progress = console.substring(0, console.indexOf("search level 1 ")).lines()
                    .filter(l -> l.contains(" requests done")).reduce((a, b) -> b).orElseThrow(() ->
                            new AssertionError(console));
            int failed = summary.at("/errors/count").asInt() - cancelled; // the server's 500s
            assertTrue(failed > 0, summary.get("errors")::toString);
            int sent = summary.at("/goodput/recorded_requests").asInt();
            // and the requests the early end left unsent, said as the verdict's doing, not a stop's
            assertTrue(progress.contains(sent + "/" + sent + " requests done (" + (20 - sent) + (20 - sent == 1 ? " request" : " requests") + " not sent: "
                    + "the search's verdict ended the level early), " + failed + " failed, " + cancelled
                    + " cancelled, "), progress + "\n" + summary.get("errors"));
        }
    }

    @Test
    void theGoodputClauseNamesTheCapacityLevelItBelongsTo() {
        assertEquals("; goodput at the capacity, concurrency 4: 7.92 req/s (TTFT <= 300 ms)",
                SearchRun.goodputClause("concurrency", "concurrency", 4, 7.916, "TTFT <= 300 ms"));
        assertEquals("; goodput at the capacity, rate 2.5 req/s: 2.40 req/s (E2E <= 2 s)",
                SearchRun.goodputClause("rate", "req/s", 2.5, 2.4, "E2E <= 2 s"));
    }
}
