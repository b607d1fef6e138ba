package io.llmperf4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.report.metrics.SloObjectives;
import io.llmperf4j.report.search.ObjectiveResult;
import io.llmperf4j.report.search.SearchDocument;
import io.llmperf4j.run.search.LevelLimit;
import io.llmperf4j.run.search.SearchPlan;
import io.llmperf4j.run.search.SearchResult;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The search's figures of a level as run, against the embedded simulator over 127.0.0.1: a rate level's scheduled
 * and sent rates beside its label, and a closed-loop level's rate over its own requests, not the one its end
 * cancelled.
 */
class SearchLevelRatesTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static SearchResult search(SimulatedServer server, Path dir, String slo, SearchPlan.Mode mode,
                                       UnaryOperator<SearchPlan> shape, ByteArrayOutputStream out,
                                       ByteArrayOutputStream err) {
        SloObjectives objectives = SloObjectives.parse(slo);
        SearchPlan plan = shape.apply(SearchPlan.of(mode, objectives.objectives()).withPause(Duration.ZERO)
                .withRepeatBest(false));
        return search(server, dir, objectives, plan, out, err);
    }

    /**
     * {@code plan} against {@code server} with the settings both search tests use (60 input and 8 output tokens,
     * seed 11111); shared with {@link SearchVerdictTest}.
     */
    static SearchResult search(SimulatedServer server, Path dir, SloObjectives objectives, SearchPlan plan,
                               ByteArrayOutputStream out, ByteArrayOutputStream err) {
        CommonSettings common = new CommonSettings(new EndpointTarget.Remote(server.baseUrl(), "none",
                "OPENAI_API_BASE", "test", Duration.ZERO), "sim", 1, 60, 20, Map.of(), dir, "openai", Map.of(),
                Duration.ofSeconds(30), Map.of(), null, null, Duration.ofSeconds(10), false, false, null, null);
        WorkloadSpec workload = new WorkloadSpec(60, 0, 8, 0, "llama-2", false, "llmperf", null, 11111, null, null,
                null, null, null, null, null, null, "en", null, null, null);
        RunRequest request = new RunRequest(common, workload, true, objectives.goodput(), true, 1, false, false,
                LoadPlan.plain("sim", 1, 20, Duration.ofSeconds(60)), null, null, plan);
        return new Runner(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).search(request);
    }

    /**
     * A Poisson level of a few seconds schedules another rate than its label (the draw's own mean): the document
     * gives the schedule's and the sends' rates, as the level's _open_loop.json has them, and the send lag's p99;
     * the answer's line puts them beside the capacity's label.
     */
    @Test
    void aRateLevelGivesTheRatesItsDrawScheduledAndSentBesideItsLabel(@TempDir Path dir) throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(20)).interTokenDelay(Duration.ofMillis(5))
                .maxConcurrentSequences(2).build())) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            SearchResult result = search(server, dir, "ttft_p90<=250ms", SearchPlan.Mode.RATE,
                    p -> p.withRange(5, 80).withTolerance(0.5).withLevelMax(LevelLimit.time(Duration.ofMillis(1500)))
                            .withMinSamples(10).withArrival(Arrival.poisson(), 7L), out, err);
            List<SearchDocument.Level> levels = result.document().levels();
            assertTrue(!levels.isEmpty(), err::toString);
            for (SearchDocument.Level level : levels) {
                JsonNode openLoop = JSON.readTree(dir.resolve(level.resultsDir()).resolve("sim_60_8_open_loop.json")
                        .toFile());
                assertNotNull(level.scheduledS(), level::toString);
                assertEquals(openLoop.get("scheduled_requests_per_s").asDouble(), level.scheduledS(), 1e-9,
                        level::toString);
                assertEquals(openLoop.get("achieved_send_requests_per_s").asDouble(), level.sentS(), 1e-9,
                        level::toString);
                assertNotNull(level.sendLagP99Ms(), level::toString);
                assertTrue(level.sendLagP99Ms() >= 0, level::toString);
            }
            JsonNode doc = JSON.readTree(dir.resolve("sim_60_8_search.json").toFile());
            assertEquals(levels.get(0).scheduledS(), doc.at("/levels/0/scheduled_s").asDouble(), 1e-9);
            assertTrue(doc.at("/levels/0").has("client_behind"), doc::toString);
            String console = out.toString(StandardCharsets.UTF_8);
            assertTrue(console.contains("rate (req/s)  scheduled      sent  verdict"), console);
            if (result.outcome().equals("found")) { // the usual answer; a loaded machine may shift it
                SearchDocument.Level capacity = levels.stream().filter(l -> l.load() == result.capacity().orElseThrow())
                        .findFirst().orElseThrow();
                String rates = String.format(java.util.Locale.ROOT, "(scheduled %.2f, sent %.2f req/s; fails at ",
                        capacity.scheduledS(), capacity.sentS());
                assertTrue(result.document().verdict().contains(rates), result.document().verdict());
            }
        }
    }

    /**
     * A concurrency level that reaches --search-level-max with a request in flight: the level's files count their
     * window to that request's cancel, as a plain run counts to its cut; the search's req/s ends with the last request
     * that ended by itself, so at concurrency 1 it is one request per request's time. The level ended at its limit
     * (not on a verdict the cancelled request made), and the merged REQUESTS_CANCELLED warning says so.
     */
    @Test
    void aClosedLoopLevelsRateEndsWithItsLastOwnRequest(@TempDir Path dir) throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(100)).interTokenDelay(Duration.ofMillis(50)).build())) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            SearchResult result = search(server, dir, "e2e_p90<=10s", SearchPlan.Mode.CONCURRENCY,
                    p -> p.withRange(1, 1).withLevelMax(LevelLimit.time(Duration.ofSeconds(2))).withMinSamples(3),
                    out, err);
            SearchDocument.Level level = result.document().levels().get(0);
            assertEquals("limit", level.stop(), err::toString);
            assertNull(level.scheduledS(), "a closed loop has no schedule");
            assertNull(level.sendLagP99Ms());
            Path folder = dir.resolve(level.resultsDir());
            JsonNode summary = JSON.readTree(folder.resolve("sim_60_8_llmperf4j_summary.json").toFile());
            double duration = summary.at("/run/duration_s").asDouble();
            int succeeded = summary.at("/run/requests_succeeded").asInt();
            long windowEnd = Long.MIN_VALUE;
            long ownEnd = Long.MIN_VALUE;
            int cancelled = 0;
            for (String line : Files.readAllLines(folder.resolve("requests.jsonl"))) {
                JsonNode r = JSON.readTree(line);
                long end = r.get("start_epoch_micros").asLong() + r.get("e2e_nanos").asLong() / 1000;
                windowEnd = Math.max(windowEnd, end);
                boolean isCancelled = r.get("failure").isObject()
                        && r.at("/failure/kind").asText().equals("CANCELLED");
                if (isCancelled) cancelled++;
                else ownEnd = Math.max(ownEnd, end);
            }
            assertEquals(1, cancelled, "one request in flight at the level's limit");
            double own = duration - (windowEnd - ownEnd) / 1e6;
            assertEquals(succeeded / own, level.requestsS(), 1e-6 * level.requestsS(), level::toString);
            assertTrue(level.requestsS() > summary.at("/throughput/requests_per_s").asDouble(), level::toString);
            assertTrue(out.toString(StandardCharsets.UTF_8).contains("warning: [REQUESTS_CANCELLED] at concurrency "
                    + "1: 1 request was in flight when the level reached --search-level-max and was cancelled: "
                    + "censored in the verdict (a miss only when already past a TTFT or E2E bound); the level's files "
                    + "count it as a failure in the error rate"), out::toString);
        }
    }

    /** The answer puts a rate level's scheduled and sent rates beside the label of the capacity and the failure. */
    @Test
    void theAnswerGivesTheRatesAsRunBesideTheLabels() {
        ObjectiveResult binding = new ObjectiveResult("ttft_p90<=300ms", 51, 10, 508.5, 372.3, 685.6, 300, "ms",
                false, true);
        assertEquals("capacity: rate 6.5 req/s (scheduled 7.01, sent 7.01 req/s; fails at 7; a level decided on its "
                + "point estimate); binding objective at the first failing level, rate 7 req/s (scheduled 7.35, sent "
                + "6.97 req/s): ttft_p90<=300ms (estimate 508.5 ms, 95 % interval [372.3 ms, 685.6 ms])",
                SearchRun.foundVerdict(false, "rate", "req/s", 6.5, 7, null, binding,
                        "scheduled 7.01, sent 7.01 req/s", "scheduled 7.35, sent 6.97 req/s"));
    }

    /**
     * The QA: after the final repeat failed, the answer still said "the bracket [7, 7.25] holds with 90 % confidence"
     * beside the degrade warning. When the repeat fails the answer claims no confidence.
     */
    @Test
    void aFailedRepeatTakesBackTheBracketsConfidence() {
        ObjectiveResult binding = new ObjectiveResult("ttft_p90<=400ms", 30, 20, 1489.5, 1395.4,
                Double.POSITIVE_INFINITY, 400, "ms", false, true);
        String held = SearchRun.foundVerdict(false, "rate", "req/s", 7, 7.25, 0.9, binding, "", "", false);
        assertTrue(held.contains("the bracket [7, 7.25] holds with 90 % confidence"), held);
        String failed = SearchRun.foundVerdict(false, "rate", "req/s", 7, 7.25, 0.9, binding, "", "", true);
        assertTrue(failed.startsWith("capacity: rate 7 req/s (fails at 7.25; the bracket [7, 7.25] is unconfirmed: "
                + "rate 7 req/s failed when repeated at the end, so no confidence is claimed); binding objective"),
                failed);
        assertTrue(!failed.contains("confidence, each level"), failed);
    }
}
