package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.server.FaultKind;
import io.llmperf4j.server.FaultPlan;
import io.llmperf4j.server.RequestTiming;
import io.llmperf4j.server.RequestTimingListener;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The capacity search end to end against the simulator over real sockets: a server with K sequence slots and fixed
 * TTFT and ITL, so its capacity is known: K in flight, or K / request time per second.
 */
class CapacitySearchTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int K = 4;
    private static final String BASE = "m_50_";

    private static SimulatedServer server(long ttftMs, long itlMs) {
        return server(ttftMs, itlMs, null);
    }

    private static SimulatedServer server(long ttftMs, long itlMs, RequestTimingListener timings) {
        return SimulatedServer.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(ttftMs))
                .interTokenDelay(Duration.ofMillis(itlMs)).maxConcurrentSequences(K).timingListener(timings)
                .build());
    }

    /**
     * How long the server held a slot for each benchmark request it completed (all its tokens: not the pre-run
     * check's), from the grant to the last flush, by its own clock: the request time its capacity is made of, which a
     * loaded machine stretches (its timers fire late).
     */
    private static final class SlotHolds implements RequestTimingListener {
        private final int outputTokens;
        private final List<Long> nanos = Collections.synchronizedList(new ArrayList<>());

        SlotHolds(int outputTokens) {
            this.outputTokens = outputTokens;
        }

        @Override
        public void onRequestFinished(RequestTiming t) {
            if (t.outcome() == RequestTiming.Outcome.COMPLETED && t.completionTokensSent() == outputTokens
                    && t.slotGrantedNanos() != RequestTiming.NOT_REACHED
                    && t.lastContentFlushedNanos() != RequestTiming.NOT_REACHED) {
                nanos.add(t.lastContentFlushedNanos() - t.slotGrantedNanos());
            }
        }

        double meanSeconds() {
            synchronized (nanos) {
                assertTrue(!nanos.isEmpty(), "the server completed no request of " + outputTokens + " tokens");
                return nanos.stream().mapToLong(Long::longValue).average().orElseThrow() / 1e9;
            }
        }
    }

    private static CliRun search(SimulatedServer server, int outputTokens, Path dir, String... extra) {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--mean-input-tokens", "50",
                "--stddev-input-tokens", "0", "--mean-output-tokens", Integer.toString(outputTokens),
                "--stddev-output-tokens", "0", "--max-num-completed-requests", "20", "--search-min-samples", "10",
                "--sleep-between", "0", "--results-dir", dir.toString()));
        args.addAll(List.of(extra));
        return CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                args.toArray(String[]::new));
    }

    private static JsonNode searchJson(Path dir, int outputTokens) throws Exception {
        return JSON.readTree(dir.resolve(BASE + outputTokens + "_search.json").toFile());
    }

    /** Probe levels, the final repeat of the best one left out. */
    private static int searchLevels(JsonNode doc) {
        int n = 0;
        for (JsonNode level : doc.get("levels")) if (!level.get("phase").asText().equals("repeat")) n++;
        return n;
    }

    @Test
    @Timeout(120)
    void aConcurrencySearchFindsExactlyTheServersSlots(@TempDir Path dir) throws Exception {
        // a request holds a slot 50 + 11 x 60 = 710 ms: from K + 1 in flight one request in K + 1 waits ~710 ms
        // for a slot (TTFT ~760 ms), past the 500 ms TTFT objective by what the server's slots decide; up to K none
        // waits (TTFT 50 ms). The objective leaves a loaded machine 450 ms of delays at K and 260 ms of a late
        // queued send at K + 1 (it was 350 and 140 with 40-ms tokens and 400 ms: a loaded machine's hiccup pushed
        // one level of K's slowest to 316 ms)
        try (SimulatedServer server = server(50, 60)) {
            CliRun run = search(server, 12, dir, "--slo", "ttft_p99<=500ms", "--search", "concurrency",
                    "--search-level-max", "2s", "--warmup-requests", "1");
            assertEquals(0, run.exitCode(), run::toString);
            System.out.print(run.out()); // the acceptance figures, in the test log
            JsonNode doc = searchJson(dir, 12);
            assertEquals("found", doc.get("outcome").asText(), run::toString);
            assertEquals(K, doc.get("capacity").asDouble(), run::toString);
            assertEquals("concurrency", doc.get("unit").asText());
            assertEquals("ttft_p99<=500ms", doc.get("binding_objective").asText());
            assertEquals(K, doc.at("/capacity_interval/low").asDouble());
            assertEquals(K + 1, doc.at("/capacity_interval/high").asDouble());
            assertTrue(searchLevels(doc) <= 8, run::toString);
            assertTrue(doc.at("/goodput/requests_per_second").asDouble() > 0, doc::toString);
            for (JsonNode level : doc.get("levels")) {
                boolean above = level.get("load").asDouble() > K;
                assertEquals(!above, level.get("passed").asBoolean(), level::toString);
                if (above) assertTrue(level.get("resolved").asBoolean(), "a failing level stops early: " + level);
            }
            assertTrue(doc.get("warnings").isEmpty(), doc::toString);
            List<String> csv = Files.readAllLines(dir.resolve(BASE + "12_search.csv"));
            assertEquals(doc.get("levels").size() + 1, csv.size(), csv::toString);
            String html = Files.readString(dir.resolve(BASE + "12_search.html"));
            assertTrue(html.contains("<svg") && html.contains("SLO 500 ms") && html.contains("capacity 4"), html);
            assertTrue(Files.isRegularFile(dir.resolve("level_01_concurrency_1").resolve(BASE
                    + "12_llmperf4j_summary.json")));
            assertTrue(run.out().contains("capacity: concurrency 4 (fails at 5"), run::toString);
            assertTrue(run.out().contains("binding objective at the first failing level, concurrency 5: ttft_p99<=500ms"), run::toString);
        }
    }

    @Test
    @Timeout(150)
    void aRateSearchFindsSlotsOverRequestTime(@TempDir Path dir) throws Exception {
        // a request holds a slot 50 + 10 x 10 = 150 ms: K / 0.15 s = 26.7 req/s; constant arrivals below it never
        // queue, above it the queue (and TTFT) grows without end. p90, not p99: of ~100 requests a level sends, p99
        // is the slowest, which one scheduling hiccup of a loaded test machine pushes past 300 ms; the queue beyond
        // capacity pushes every later request past it. No final repeat: a passing level runs its whole 4 s, and the
        // repeat is the other tests' subject (belowAndAboveTheRangeAreAnswersToo, aServerThatDegradesFailsTheFinalRepeat)
        // and it starts at 16, below the capacity: a start at 8 only added a passing 4-s level before the same 16,
        // 32 (fails), then the same bisection. It bisects to the 10 % the capacity is checked within, not the default
        // 5 %: the level that narrowed [28, 30] to [28, 29] (a failing one, near the capacity: some 100 requests,
        // 3.6 s) told nothing this test reads.
        // The answer is checked from above tightly and from below generously. From above: a search must never
        // report more capacity than the server has, so it is at most the server's capacity plus the search's
        // resolution (the 10 % it bisects to), both the configured one and the one the server's own clock gives
        // (a loaded machine's late timers stretch the 150 ms: a run read 24.7 req/s completed at rate 28, 162 ms a
        // request, and the search then rightly finds less). From below: the level it names passed, the one just
        // above it failed within the resolution, and the answer is at least half the capacity. A stall of a
        // loaded machine fails a level near the capacity on its own (a run failed 26 and answered 24, 10 % under
        // 26.67), which a tight lower bound read as the search's error. That the request time is the configured
        // one is checked from the other side only, since load can only lengthen it
        SlotHolds holds = new SlotHolds(11);
        try (SimulatedServer server = server(50, 10, holds)) {
            CliRun run = search(server, 11, dir, "--slo", "ttft_p90<=300ms", "--search", "rate", "--arrival",
                    "constant", "--search-min", "16", "--search-level-max", "4s", "--search-no-repeat",
                    "--search-tolerance", "10");
            assertEquals(0, run.exitCode(), run::toString);
            System.out.print(run.out()); // the acceptance figures, in the test log
            JsonNode doc = searchJson(dir, 11);
            double resolution = 0.10;
            double analytic = K / 0.150;
            double requestTime = holds.meanSeconds();
            double served = K / requestTime;
            System.out.printf("server's mean request time %.1f ms: %d slots over it %.2f req/s (configured %.2f)%n",
                    requestTime * 1e3, K, served, analytic);
            assertEquals("found", doc.get("outcome").asText(), run::toString);
            assertEquals("req/s", doc.get("unit").asText());
            assertTrue(requestTime >= 0.150 * 0.99, "the server held a slot " + requestTime + " s, under 150 ms");
            double capacity = doc.get("capacity").asDouble();
            String figures = "capacity " + capacity + " (" + K + " slots over the server's mean request time "
                    + requestTime + " s: " + served + "; configured " + analytic + ")\n" + run;
            // from above, tight
            assertTrue(capacity <= (1 + resolution) * served, figures);
            assertTrue(capacity <= (1 + resolution) * analytic, figures);
            // from below, generous: at least half, and what it wrote is consistent with its answer
            assertTrue(capacity >= analytic / 2, figures);
            double lowestFailing = assertLevelsBracket(doc, capacity);
            assertEquals(capacity, doc.at("/capacity_interval/low").asDouble(), doc::toString);
            assertEquals(lowestFailing, doc.at("/capacity_interval/high").asDouble(), doc::toString);
            assertTrue(lowestFailing - capacity <= resolution * capacity + 1e-9, "the search stopped with the "
                    + "failing level " + lowestFailing + " more than " + resolution + " above its answer: " + figures);
            assertTrue(searchLevels(doc) <= 8, run::toString);
            assertTrue(run.out().contains("capacity: rate "), run::toString);
        }
    }

    /**
     * Checks a search's levels against its answer: the level at {@code capacity} passed, every level at or below it
     * passed and every level above it failed, and at least one did (the search found where it fails); returns the
     * lowest failing level.
     */
    private static double assertLevelsBracket(JsonNode doc, double capacity) {
        boolean foundLevel = false;
        double lowestFailing = Double.POSITIVE_INFINITY;
        for (JsonNode level : doc.get("levels")) {
            double load = level.get("load").asDouble();
            boolean passed = level.get("passed").asBoolean();
            if (load == capacity) foundLevel = true;
            assertEquals(load <= capacity, passed, "level " + level + " against the answer " + capacity);
            if (!passed) lowestFailing = Math.min(lowestFailing, load);
        }
        assertTrue(foundLevel, "no level at the answer " + capacity + ": " + doc);
        assertTrue(lowestFailing < Double.POSITIVE_INFINITY, "no level failed: " + doc);
        return lowestFailing;
    }

    @Test
    @Timeout(60)
    void belowAndAboveTheRangeAreAnswersToo(@TempDir Path dir) throws Exception {
        try (SimulatedServer server = server(20, 2)) {
            // errors past the objective at the first level: capacity below the range, exit 0 with the verdict
            try (SimulatedServer failing = SimulatedServer.start(SimulatorConfig.builder()
                    .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1))
                    .faultPlan(FaultPlan.random(0.5, Map.of(FaultKind.HTTP_500, 1.0), 3)).build())) {
                Path below = dir.resolve("below");
                CliRun run = search(failing, 4, below, "--slo", "ttft_p99<=5s,error_rate<=1%", "--search",
                        "concurrency", "--search-min", "2", "--search-level-max", "40");
                assertEquals(0, run.exitCode(), run::toString);
                JsonNode doc = searchJson(below, 4);
                assertEquals("below_range", doc.get("outcome").asText());
                assertTrue(doc.get("capacity").isNull());
                assertEquals("error_rate<=1%", doc.get("binding_objective").asText());
                assertEquals(1, doc.get("levels").size());
                assertTrue(run.out().contains("capacity below the range: concurrency 2 (the first level) already "
                        + "fails error_rate<=1%"), run::toString);
            }
            Path above = dir.resolve("above");
            CliRun run = search(server, 4, above, "--slo", "e2e_p50<=5s", "--search", "concurrency",
                    "--search-max", "3", "--search-level-max", "6");
            assertEquals(0, run.exitCode(), run::toString);
            JsonNode doc = searchJson(above, 4);
            assertEquals("above_range", doc.get("outcome").asText());
            assertEquals(3, doc.get("capacity").asDouble());
            assertTrue(doc.at("/capacity_interval/high").isNull());
            List<String> phases = new ArrayList<>();
            doc.get("levels").forEach(l -> phases.add(l.get("phase").asText() + " " + l.get("load").asInt()));
            assertEquals(List.of("grow 1", "grow 2", "grow 3", "repeat 3"), phases);
            assertTrue(run.out().contains("capacity above the range: every level up to concurrency 3"), run::toString);
        }
    }

    @Test
    @Timeout(60)
    void aServerThatDegradesFailsTheFinalRepeat(@TempDir Path dir) throws Exception {
        // the pre-run check's request and the next 20 succeed, every later one gets HTTP 500: levels 1 and 2 pass,
        // their repeat fails
        List<FaultKind> sequence = new ArrayList<>();
        for (int i = 0; i < 21; i++) sequence.add(FaultKind.NONE);
        for (int i = 0; i < 60; i++) sequence.add(FaultKind.HTTP_500);
        try (SimulatedServer degrading = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(5)).interTokenDelay(Duration.ofMillis(1))
                .faultPlan(FaultPlan.sequence(sequence)).build())) {
            CliRun run = search(degrading, 4, dir, "--slo", "error_rate<=1%", "--search", "concurrency",
                    "--search-max", "2", "--search-level-max", "10", "--no-client-warmup");
            assertEquals(0, run.exitCode(), run::toString);
            JsonNode doc = searchJson(dir, 4);
            assertEquals(2, doc.get("capacity").asDouble(), run::toString);
            assertEquals("repeat", doc.at("/levels/2/phase").asText());
            assertTrue(!doc.at("/levels/2/passed").asBoolean(), doc::toString);
            assertTrue(doc.at("/warnings/0").asText().contains("the server may degrade over time"), doc::toString);
            assertTrue(run.out().contains("warning: the best level (concurrency 2) failed when repeated"),
                    run::toString);
        }
    }

    @Test
    void badSearchInputIsOneLine() {
        Map<String, String> env = Map.of("OPENAI_API_BASE", "http://127.0.0.1:9/v1", "OPENAI_API_KEY", "k");
        String[][] cases = {
                {"--slo", "ttft=abc", "has no valid limit ('abc' is not like 500ms"},
                {"--slo", "ttft_p99<=1s", "--search", "size", "--search 'size': use concurrency or rate"},
                {"--search", "rate", "--search needs objectives: --slo"},
                {"--slo", "ttft=1s", "--search", "rate", "--search needs objectives"},
                {"--slo", "ttft_p99<=1s", "--search", "concurrency", "--search-level-max", "0",
                        "--search-level-max: '0' is not a level limit"},
                {"--slo", "ttft_p99<=1s", "--search", "concurrency", "--concurrency-sweep", "1,2",
                        "--concurrency-sweep does not apply with --search concurrency"},
                {"--slo", "ttft_p99<=1s", "--search", "concurrency", "--arrival", "constant",
                        "open-loop flags go with --search rate"},
                {"--slo", "ttft_p99<=1s", "--search", "concurrency", "--search-max", "2.5", "whole numbers"},
                {"--search-max", "8", "--search-max applies to --search"}};
        for (String[] c : cases) {
            List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m"));
            args.addAll(List.of(c).subList(0, c.length - 1));
            CliRun.of(env, args.toArray(String[]::new)).assertOneErrorLine(2, c[c.length - 1]);
        }
    }
}
