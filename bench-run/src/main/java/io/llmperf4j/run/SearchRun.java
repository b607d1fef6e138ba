package io.llmperf4j.run;

import io.llmperf4j.engine.load.KeepUp;
import io.llmperf4j.engine.load.LoadProfile;
import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.SaturationRules;
import io.llmperf4j.engine.load.SaturationVerdict;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.llmperf.LlmperfFileNames;
import io.llmperf4j.report.metrics.Goodput;
import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.RunWarning;
import io.llmperf4j.report.metrics.WarningCode;
import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.report.search.ClientLagJudge;
import io.llmperf4j.report.search.LevelJudge;
import io.llmperf4j.report.search.LevelJudgement;
import io.llmperf4j.report.search.ObjectiveResult;
import io.llmperf4j.report.search.SearchConsole;
import io.llmperf4j.report.search.SearchDocument;
import io.llmperf4j.report.search.SearchFiles;
import io.llmperf4j.report.metrics.SloObjective;
import io.llmperf4j.report.summary.SummaryDocument;
import io.llmperf4j.run.search.LevelChooser;
import io.llmperf4j.run.search.SearchPlan;
import io.llmperf4j.run.search.SearchResult;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.function.Function;

/**
 * A capacity search ({@link SearchPlan}) through the ordinary flow: each probe level is a one-level {@link LoadPlan}
 * run by the executor (this machine or a cluster) through a {@link ModelRun}, so it writes its usual files in its
 * own folder. A {@link LevelJudge} watches the level's requests as they end and ends the level (its requests in
 * flight cancelled, which a server aborts, so the next level starts on an empty queue) as soon as the verdict is
 * resolved; requests ending after that decision do not change it. Then the search's own files and console report.
 */
final class SearchRun {
    private final SearchPlan search;
    private final LoadExecutor executor;
    private final Function<LoadPlan, ModelRun.Context> contexts;
    private final BenchmarkSettings base;
    private final TokenCounting tokenCounting;
    private final Path resultsDir;
    private final StopControl stops;
    private final PrintStream out;
    private final PrintStream err;
    private final long workloadSeed;
    private final int maxConnectionsCap;
    private final int timeoutSeconds;
    /**
     * The workload is multi-turn sessions (--turns): a rate level starts sessions at its rate (each session's later
     * turns follow its earlier ones), so its load is named in sessions/s, its completions still in req/s (turns).
     */
    private final boolean sessions;
    /** The results folder, which says where the search's own files went ({@link ResultsFolder#announceWritten}). */
    private final ResultsFolder folder;
    /** Every measured request of the levels run so far (warm-up excluded), in level order. */
    private final List<RequestRecord> records = new ArrayList<>();

    /**
     * @param contexts     the model run's context for a level's plan
     * @param base         the run's parameters (model set)
     * @param workloadSeed the open loop's seed when the plan gives none
     * @param sessions     the workload is multi-turn sessions (--turns): a rate level's load is sessions/s
     * @param folder       the results folder the levels' contexts share
     */
    SearchRun(SearchPlan search, LoadExecutor executor, Function<LoadPlan, ModelRun.Context> contexts,
              BenchmarkSettings base, TokenCounting tokenCounting, Path resultsDir, StopControl stops,
              PrintStream out, PrintStream err, long workloadSeed, int timeoutSeconds, boolean sessions,
              ResultsFolder folder) {
        this.search = search;
        this.executor = executor;
        this.contexts = contexts;
        this.base = base;
        this.tokenCounting = tokenCounting;
        this.resultsDir = resultsDir;
        this.stops = stops;
        this.out = out;
        this.err = err;
        this.workloadSeed = workloadSeed;
        this.maxConnectionsCap = LoadPlan.UNCAPPED_OPEN_LOOP_CONNECTIONS;
        this.timeoutSeconds = timeoutSeconds;
        this.sessions = sessions;
        this.folder = folder;
    }

    /**
     * A level as run: its verdict and figures.
     *
     * @param fromActualSend the same requests judged from their actual sends, for an open loop (whose send lag is
     *                       the client's own delay, or a wait for a slot at its cap); null for a closed loop
     * @param sendLagP99Ms   p99 of the level's send lags; NaN for a closed loop
     * @param lagIsClients   the send lag was the client's own: uncapped, or a cap the keep-up verdict did not find
     *                       full ({@link io.llmperf4j.engine.load.KeepUp.Reading#CLIENT_BEHIND})
     * @param atCap          the single run's keep-up words on a capped level held at its cap
     *                       ({@link io.llmperf4j.engine.load.KeepUp.Reading#AT_CAP}); null otherwise
     */
    private record Probe(int index, String phase, double load, LevelJudgement judgement, String stop,
                         ModelRun.LevelReport report, String folder, int cancelledAtStop,
                         LevelJudgement fromActualSend, double sendLagP99Ms, boolean lagIsClients, String atCap) {

        /** Fails from the intended send and holds from the actual one: the send lag alone failed it. */
        private boolean failedOnlyByLag() {
            return fromActualSend != null && !judgement.passed() && fromActualSend.passed();
        }

        /**
         * The level failed only by the client's send lag: its binding objective fails from the intended send and
         * holds from the actual one, so the client fell behind its schedule, not the server.
         */
        boolean clientBehind() {
            return failedOnlyByLag() && lagIsClients && atCap == null;
        }

        /**
         * The level failed only by its waits for a slot at --max-concurrency, as the keep-up verdict reads it
         * (AT_CAP): the rate was the cap's, not the service falling behind.
         */
        boolean heldAtCap() {
            return failedOnlyByLag() && atCap != null;
        }

        /** The binding objective judged from the actual send (the client-behind clause's figure). */
        ObjectiveResult bindingFromActualSend() {
            String binding = judgement.binding().objective();
            return fromActualSend.results().stream().filter(r -> r.objective().equals(binding)).findFirst()
                    .orElseThrow();
        }
    }

    SearchResult run(String model) {
        err.println("llmperf4j: capacity search over " + search.mode().key() + " from "
                + LoadSettings.formatLevel(search.start()) + " to " + LoadSettings.formatLevel(search.max()) + ": "
                + String.join(", ", search.objectives().stream().map(SloObjective::key).toList())
                + "; each level at most " + search.levelMax().describe() + executor.where(levelPlan(model,
                search.start())));
        LevelChooser chooser = new LevelChooser(search);
        List<Probe> probes = new ArrayList<>();
        while (!stops.allStopped()) {
            OptionalDouble next = chooser.next();
            if (next.isEmpty()) break;
            if (!probes.isEmpty() && !stops.pause(search.pause())) break;
            Probe probe = probe(model, probes.size() + 1, chooser.growing() ? "grow" : "bisect", next.getAsDouble());
            probes.add(probe);
            if (stops.interrupted()) break;
            chooser.record(probe.load(), probe.judgement().passed());
        }
        List<String> warnings = new ArrayList<>();
        double best = chooser.passed();
        boolean repeatFailed = false;
        if (search.repeatBest() && !Double.isNaN(best) && !stops.interrupted() && stops.pause(search.pause())) {
            Probe repeat = probe(model, probes.size() + 1, "repeat", best);
            probes.add(repeat);
            if (!repeat.judgement().passed() && !stops.interrupted()) {
                // the bracket's low end did not hold a second time: the answer claims no confidence for it
                repeatFailed = !repeat.clientBehind();
                String level = search.mode().key() + " " + LoadSettings.formatLevel(best);
                warnings.add(repeat.clientBehind()
                        ? "the best level (" + level + ") failed when repeated at the end only by the client's send "
                        + "lag: " + clientBehindFigures(repeat) + "; the client fell behind its schedule, not the "
                        + "server; " + CLIENT_REMEDY
                        // the cap's waits, as a level's AT_CAP reading says them: not a server that degrades
                        : repeat.heldAtCap()
                        ? "the best level (" + level + ") failed when repeated at the end only by the waits for a slot "
                        + "at the cap (--max-concurrency " + search.maxConcurrency().getAsInt() + "): "
                        + atCapFigures(repeat) + "; not the service falling behind nor a server that degrades: the "
                        + "capacity found is the cap's, a lower bound for the service"
                        : "the best level (" + level + ") failed when repeated at the end ("
                        + repeat.judgement().binding().objective() + "): the server may degrade over time, so the "
                        + "capacity found is optimistic");
            }
        }
        List<Probe> behind = probes.stream().filter(p -> p.clientBehind() && !p.phase().equals("repeat")).toList();
        if (!behind.isEmpty()) {
            warnings.add("the client fell behind its schedule at " + search.mode().key() + " " + String.join(", ",
                    behind.stream().map(p -> LoadSettings.formatLevel(p.load())).toList()) + ": "
                    + (behind.size() == 1 ? "that level" : "those levels") + " failed only by the client's send lag ("
                    + String.join("; ", behind.stream().map(this::clientBehindFigures).toList()) + "); the "
                    + "search counted " + (behind.size() == 1 ? "it as a failure" : "them as failures")
                    + " the server may not have caused, so the capacity found is a lower bound; " + CLIENT_REMEDY);
        }
        // the repeat's own warning says it when it was held at the cap
        List<Probe> capped = probes.stream().filter(p -> p.heldAtCap() && !p.phase().equals("repeat")).toList();
        if (!capped.isEmpty()) {
            warnings.add("held at the cap (--max-concurrency " + search.maxConcurrency().getAsInt() + ") at "
                    + search.mode().key() + " " + String.join(", ", capped.stream()
                    .map(p -> LoadSettings.formatLevel(p.load())).toList()) + ": " + (capped.size() == 1
                    ? "that level" : "those levels") + " failed only by the waits for a slot at the cap ("
                    + String.join("; ", capped.stream().map(this::atCapFigures).toList()) + "); not the service "
                    + "falling behind: the search counted " + (capped.size() == 1 ? "it as a failure" : "them as "
                    + "failures") + ", so the capacity found is the cap's, a lower bound for the service");
        }
        SearchDocument doc = document(model, chooser, probes, warnings, repeatFailed);
        // the console's figures first: they need no disk, and a full one then fails the search after them
        out.print(SearchConsole.render(doc));
        // each level's own warnings (its summary's), as a sweep prints its levels': one line per code
        List<String> levelWarnings = LevelWarnings.merged(probes.stream().filter(p -> p.report() != null)
                .map(p -> new LevelWarnings.Level(p.report().outcome().settings(),
                        p.report().metrics() == null ? null : searchWorded(p, p.report().metrics().warnings()),
                        false)).toList(), unit());
        levelWarnings.forEach(w -> out.println("warning: " + w));
        out.flush();
        List<Path> files = List.of();
        if (resultsDir != null) {
            try {
                files = SearchFiles.write(resultsDir, LlmperfFileNames.baseName(base), doc, err);
                // through the folder: a failed --overwrite search's files move to a failed_ folder, and the line
                // names where they end up
                folder.announceWritten(err, resultsDir, String.join(", ",
                        files.stream().map(p -> p.getFileName().toString()).toList()) + " and a folder per level");
            } catch (IOException e) {
                throw new RunFailedException("could not write the search files in " + resultsDir + ": "
                        + ModelRun.why(e), e);
            }
        }
        return new SearchResult(doc, files, stops.interrupted(), levelWarnings);
    }

    /**
     * Every measured request of every level run (the final repeat included, warm-ups not), after {@link #run}: a
     * search whose every request failed gives an --overwrite folder back to the earlier run, as a plain run does.
     */
    List<RequestRecord> records() {
        return List.copyOf(records);
    }

    /** Runs one level and judges it. */
    private Probe probe(String model, int index, String phase, double load) {
        LoadPlan plan = levelPlan(model, load);
        String folder = String.format(Locale.ROOT, "level_%02d_%s_%s", index, search.mode().key(),
                LoadSettings.formatLevel(load));
        Path dir = resultsDir == null ? null : resultsDir.resolve(folder);
        ModelRun run = new ModelRun(model, dir, base, contexts.apply(plan));
        ClientLagJudge judge = new ClientLagJudge(search.objectives(), search.minSamples());
        // an uncapped open loop's send lag is the client's own delay (no slot to wait for): judged from the actual
        // sends too, a failure the client's lag made is told from one the server made (a closed loop has no lag). A
        // capped loop's lag can be waits for a slot at the cap: whose they were, the level's keep-up verdict says
        // once it has run whole (AT_CAP: the cap's; CLIENT_BEHIND: the client's; otherwise the server's)
        boolean openLoop = search.mode() == SearchPlan.Mode.RATE;
        boolean lagIsClients = openLoop && search.maxConcurrency().isEmpty();
        LevelJudgement[] decided = new LevelJudgement[1];
        int[] nextCheck = {search.minSamples()};
        int[] cancelledAtStop = {0};
        run.observeRecords(record -> {
            if (record.warmup()) return;
            Failure f = record.record().failure();
            boolean cancelled = f != null && f.kind() == FailureKind.CANCELLED;
            if (decided[0] != null) {
                // in flight when the verdict ended the level: cancelled by the search, not failed by the server
                if (cancelled) cancelledAtStop[0]++;
                return;
            }
            // the main run's rule: a session's later turn (due at a time the client set) from its actual send
            RequestMetrics metrics = RequestMetrics.from(record.record(), tokenCounting);
            if (ScheduleLag.dueAtTheSchedule(search.mode() == SearchPlan.Mode.RATE, record.record())) {
                judge.add(metrics, record.startLagNanos()); // added to TTFT, which holds the client delay
            } else {
                judge.addFromActualSend(metrics);
            }
            // a cancellation before any verdict comes from the level's end (its limit, a stop): censored in the
            // verdict, it cannot end early a level that is already ending
            if (cancelled || judge.samples() < nextCheck[0]) return;
            // geometric checkpoints: few looks at the data, so repeated testing inflates the error little
            nextCheck[0] = Math.max(judge.samples() + 1, (int) Math.ceil(judge.samples() * 1.1));
            LevelJudgement j = judge.judge();
            // an open loop past capacity looks fine until its queue has grown: only a failure may end it early
            if (j.resolved() && (search.mode() == SearchPlan.Mode.CONCURRENCY || !j.passed())) {
                // nor a failure that the send lag alone makes: the level runs on, to be judged whole
                if (openLoop && !j.passed() && judge.fromActualSend().passed()) return;
                decided[0] = j;
                stops.endLevel();
            }
        });
        executor.run(model, plan, run, stops);
        ModelRun.LevelReport report = run.levels().isEmpty() ? null : run.levels().get(0);
        if (report != null && report.run() != null) records.addAll(report.run().records());
        LevelJudgement judgement = decided[0] != null ? decided[0] : judge.judge();
        String stop = decided[0] != null ? "resolved" : stops.interrupted() ? "stopped" : "limit";
        String atCap = null;
        boolean lagWasClients = lagIsClients;
        if (openLoop && !lagIsClients && report != null && report.run() != null) {
            // a capped level, read as the single run's keep-up verdict reads it
            KeepUp.Reading reading = SaturationVerdict.keptUp(report.summary(), SaturationRules.DEFAULT);
            if (reading == KeepUp.Reading.AT_CAP) atCap = SaturationVerdict.heldAtCap(report.summary());
            lagWasClients = reading == KeepUp.Reading.CLIENT_BEHIND;
        }
        Probe probe = new Probe(index, phase, load, judgement, stop, report, dir == null ? null : folder,
                cancelledAtStop[0], openLoop ? judge.fromActualSend() : null,
                openLoop ? judge.sendLagP99Millis() : Double.NaN, lagWasClients, atCap);
        err.printf(Locale.ROOT, "llmperf4j: search level %d (%s %s): %s%s after %d requests, %s%s%s%s%n", index,
                search.mode().key(), LoadSettings.formatLevel(load), judgement.passed() ? "pass" : "FAIL",
                judgement.resolved() ? "" : " (estimate)", judgement.samples(), describe(judgement.binding()),
                judgement.unresolved().isEmpty() ? "" : "; " + SearchConsole.unresolvedClause(judgement.unresolved()),
                probe.clientBehind() ? "; only by the client's send lag: " + clientBehindFigures(probe)
                        : probe.heldAtCap() ? "; only by the waits for a slot at the cap: " + atCapFigures(probe) : "",
                cancelledAtStop[0] == 0 ? "" : "; " + cancelledClause(cancelledAtStop[0]));
        return probe;
    }

    /**
     * "rate 20: from the actual send ttft_p90<=300ms is met (estimate 101.2 ms, ...); held at the cap: sent late
     * because 1 request was in flight at the cap (...): ...": why a level's failure is the cap's.
     */
    private String atCapFigures(Probe p) {
        return String.format(Locale.ROOT, "%s %s: from the actual send %s is met (estimate %s); %s",
                search.mode().key(), LoadSettings.formatLevel(p.load()), p.bindingFromActualSend().objective(),
                describeEstimate(p.bindingFromActualSend()), p.atCap());
    }

    /** What to do when the client, not the server, fell behind (the search's warnings end with it). */
    static final String CLIENT_REMEDY = "run the client on a quieter machine or with more cores, or spread the load "
            + "over load workers (--cluster), and search again";

    /**
     * "rate 6.5: send lag p99 166.0 ms; from the actual send ttft_p90<=300ms is met (estimate 280.8 ms, 95 %
     * interval [...])": why a level's failure is the client's.
     */
    private String clientBehindFigures(Probe p) {
        return String.format(Locale.ROOT, "%s %s: send lag p99 %.1f ms; from the actual send %s is met (estimate %s)",
                search.mode().key(), LoadSettings.formatLevel(p.load()), p.sendLagP99Ms(),
                p.bindingFromActualSend().objective(), describeEstimate(p.bindingFromActualSend()));
    }

    /**
     * A level's own warnings as the search prints them: REQUESTS_CANCELLED says the search's end of the level (its
     * verdict, or --search-level-max), not a run's timeout; the level's files keep the plain run's words.
     */
    private static List<RunWarning> searchWorded(Probe p, List<RunWarning> warnings) {
        if (!p.stop().equals("resolved") && !p.stop().equals("limit")) return warnings;
        return warnings.stream().map(w -> w.code() != WarningCode.REQUESTS_CANCELLED ? w
                : new RunWarning(w.code(), cancelledBySearch(cancelled(p), p.stop().equals("resolved")))).toList();
    }

    private static int cancelled(Probe p) {
        if (p.report() == null || p.report().run() == null) return p.cancelledAtStop();
        return (int) p.report().run().records().stream()
                .filter(r -> r.failure() != null && r.failure().kind() == FailureKind.CANCELLED).count();
    }

    /**
     * "4 requests were in flight when the search ended the level early on its verdict and were cancelled: ..."
     * (or "when the level reached --search-level-max").
     */
    static String cancelledBySearch(int cancelled, boolean onVerdict) {
        return cancelled + (cancelled == 1 ? " request was" : " requests were") + " in flight when "
                + (onVerdict ? "the search ended the level early on its verdict" : "the level reached "
                + "--search-level-max") + " and " + (cancelled == 1 ? "was" : "were") + " cancelled: censored in "
                + "the verdict (a miss only when already past a TTFT or E2E bound); the level's files count "
                + (cancelled == 1 ? "it as a failure" : "them as failures") + " in the error rate, absent from the "
                + "latency statistics.";
    }

    /** The one-level plan of {@code load}. */
    private LoadPlan levelPlan(String model, double load) {
        Duration levelTime = search.levelMax().duration();
        int levelRequests = search.levelMax().requests();
        Duration runTimeout = Duration.ofSeconds(timeoutSeconds);
        if (search.mode() == SearchPlan.Mode.CONCURRENCY) {
            int c = (int) load;
            LoadProfile.ClosedLoop profile = LoadProfile.closedLoop(c)
                    .withMaxRequests(levelRequests > 0 ? levelRequests : Integer.MAX_VALUE)
                    .withTimeout(levelTime != null ? levelTime.plus(warmupTime()) : runTimeout)
                    .withPromptOrder(LoadPlan.PROMPT_ORDER);
            return new LoadPlan(true, List.of(model), LoadPlan.Kind.CLOSED_LOOP, profile, search.warmup(), null,
                    SaturationRules.DEFAULT, Duration.ZERO, c, OpenLoopSettings.DEFAULT_SEED, false);
        }
        long seed = search.arrivalSeed() != null ? search.arrivalSeed() : workloadSeed;
        OpenLoopSettings.Builder b = OpenLoopSettings.builder(load).arrival(search.arrival()).seed(seed);
        if (levelRequests > 0) {
            b.maxRequests(levelRequests).timeout(runTimeout);
        } else {
            // arrivals for the level's time, then at most as long again for those in flight
            b.duration(levelTime).timeout(levelTime.multipliedBy(2).plus(warmupTime()));
        }
        search.maxConcurrency().ifPresent(b::maxConcurrency);
        OpenLoopSettings s = b.build();
        LoadProfile.OpenLoop profile = new LoadProfile.OpenLoop(s.requestsPerSecond(), s.arrival(), s.seed(),
                s.maxRequests(), s.duration(), s.timeout(), s.maxConcurrency());
        return new LoadPlan(true, List.of(model), LoadPlan.Kind.OPEN_LOOP, profile, search.warmup(), null,
                SaturationRules.DEFAULT, Duration.ZERO, search.maxConcurrency().orElse(maxConnectionsCap), seed, true,
                sessions);
    }

    private Duration warmupTime() {
        return search.warmup() instanceof io.llmperf4j.engine.load.Warmup.ForDuration d ? d.duration()
                : Duration.ZERO;
    }

    // ---------------------------------------------------------------- the answer

    /** @param repeatFailed the best level failed its final repeat (not by the client's send lag alone) */
    private SearchDocument document(String model, LevelChooser chooser, List<Probe> probes, List<String> warnings,
                                    boolean repeatFailed) {
        String unit = unit();
        String key = search.mode().key();
        double capacity = chooser.passed();
        double failed = chooser.failed();
        boolean interrupted = stops.interrupted();
        Probe atCapacity = firstAt(probes, capacity);
        Probe atFailed = firstAt(probes, failed);
        String outcome;
        String binding;
        String verdict;
        if (probes.isEmpty()) {
            outcome = "stopped";
            binding = null;
            verdict = "search stopped before its first level";
        } else if (Double.isNaN(capacity)) {
            outcome = "below_range";
            ObjectiveResult b = probes.get(0).judgement().binding();
            binding = b.objective();
            verdict = belowRangeVerdict(search.mode(), probes.get(0).load(), b);
        } else if (Double.isNaN(failed)) {
            outcome = interrupted ? "stopped" : "above_range";
            ObjectiveResult b = atCapacity.judgement().binding();
            binding = b.objective();
            verdict = (interrupted ? "search stopped (Ctrl-C); best so far: " + key + " "
                    + LoadSettings.formatLevel(capacity) : "capacity above the range: every level up to "
                    + key + " " + LoadSettings.formatLevel(capacity) + " (--search-max) met the objectives; raise "
                    + "--search-max") + "; nearest its limit, at " + key + " " + LoadSettings.formatLevel(capacity)
                    + ": " + describe(b);
        } else {
            outcome = interrupted ? "stopped" : "found";
            ObjectiveResult b = atFailed.judgement().binding();
            binding = b.objective();
            // a rate level's label is the mean its arrivals were drawn at: the rates the server got go beside it
            verdict = foundVerdict(interrupted, key, unit, capacity, failed, intervalConfidence(atCapacity, atFailed),
                    b, asRun(atCapacity, unit), asRun(atFailed, unit), repeatFailed);
        }
        SearchDocument.Goodput goodput = null;
        if (atCapacity != null && atCapacity.report() != null && atCapacity.report().metrics() != null) {
            Goodput g = atCapacity.report().metrics().goodput().orElse(null);
            if (g != null) {
                goodput = new SearchDocument.Goodput(g.slo().describe(),
                        SearchDocument.num(g.goodRequestsPerSecond() * ownWindowScale(atCapacity)),
                        SearchDocument.num(g.goodFraction()));
                verdict += goodputClause(key, unit, capacity,
                        g.goodRequestsPerSecond() * ownWindowScale(atCapacity), g.slo().describe());
            }
        }
        verdict += "; " + probes.size() + (probes.size() == 1 ? " level" : " levels");
        SearchDocument.Interval interval = probes.isEmpty() ? null : new SearchDocument.Interval(
                Double.isNaN(capacity) ? null : capacity, Double.isNaN(failed) ? null : failed,
                repeatFailed ? null : intervalConfidence(atCapacity, atFailed));
        List<SearchDocument.Level> levels = new ArrayList<>();
        for (Probe p : probes) {
            ModelRun.LevelReport r = p.report();
            double scale = ownWindowScale(p);
            Double duration = r == null || r.run() == null ? null : r.run().durationNanos() / 1e9 / scale;
            Double goodputS = r == null || r.metrics() == null ? null : r.metrics().goodput()
                    .map(g -> SearchDocument.num(g.goodRequestsPerSecond() * scale)).orElse(null);
            levels.add(new SearchDocument.Level(p.index(), p.phase(), p.load(), p.judgement().passed(),
                    p.judgement().resolved(), p.stop(), p.judgement().samples(),
                    r == null || r.run() == null ? null : r.run().records().size(), duration,
                    r == null ? null : SearchDocument.num(r.summary().requestsPerSecond() * scale),
                    r == null ? null : SearchDocument.num(r.summary().outputTokensPerSecond() * scale), goodputS,
                    r == null ? null : SearchDocument.num(scheduledRate(r)),
                    r == null ? null : SearchDocument.num(sentRate(r)), SearchDocument.num(p.sendLagP99Ms()),
                    p.judgement().binding().objective(), p.judgement().results().stream()
                    .map(SearchDocument.Objective::of).toList(),
                    p.clientBehind() ? SearchDocument.Objective.of(p.bindingFromActualSend()) : null, p.folder(),
                    r == null || r.metrics() == null ? List.of() : searchWorded(p, r.metrics().warnings()).stream()
                            .map(SummaryDocument.WarningJson::of).toList()));
        }
        String load = search.mode() == SearchPlan.Mode.CONCURRENCY ? "closed loop"
                : "open loop, " + search.arrival() + (sessions ? " session arrivals" : " arrivals")
                + search.maxConcurrency().stream()
                .mapToObj(c -> ", at most " + c + " in flight").findFirst().orElse("");
        SearchDocument.Settings settings = new SearchDocument.Settings(search.start(), search.max(),
                search.tolerance(), search.levelMax().describe(), search.minSamples(), 1 - LevelJudge.ALPHA, load);
        // simulated known from the start, so the files need not read it back from a level's summary
        return new SearchDocument(SearchDocument.SCHEMA, model, base.simulated(), key, unit, search.objectives()
                .stream().map(SloObjective::key).toList(), outcome, Double.isNaN(capacity) ? null : capacity, interval, binding,
                goodput, verdict, warnings, settings, levels);
    }

    /**
     * The unit of the search's levels: "concurrency", "req/s", or "sessions/s" for a rate search of sessions (its
     * arrivals are session starts, as the level's own summary says).
     */
    private String unit() {
        return search.mode() == SearchPlan.Mode.RATE && sessions ? "sessions/s" : search.mode().unit();
    }

    /** " req/s", " sessions/s" after a rate level's value; nothing after a concurrency. */
    private static String after(String unit) {
        return unit.equals("concurrency") ? "" : " " + unit;
    }

    /**
     * "capacity below the range: concurrency 2 (the first level) already fails ...; lower --search-min". At
     * concurrency 1 there is nothing lower to try: the objective is not met even with one request in flight.
     */
    static String belowRangeVerdict(SearchPlan.Mode mode, double firstLoad, ObjectiveResult binding) {
        String level = mode.key() + " " + LoadSettings.formatLevel(firstLoad);
        if (mode == SearchPlan.Mode.CONCURRENCY && firstLoad <= 1) {
            return "capacity below the range: " + level + " (the first level) already fails " + describe(binding)
                    + "; the objective is not met even with one request in flight (a lower --search-min cannot "
                    + "help: look at the server, or the objective)";
        }
        return "capacity below the range: " + level + " (the first level) already fails " + describe(binding)
                + "; lower --search-min";
    }

    /**
     * "; goodput at the capacity, concurrency 4: 7.92 req/s (TTFT <= 300 ms)": the capacity level's goodput, named as
     * such (it follows the clause about the first failing level, whose goodput it is not).
     */
    static String goodputClause(String key, String unit, double capacity, double goodRequestsPerSecond,
                                String slo) {
        return String.format(Locale.ROOT, "; goodput at the capacity, %s %s%s: %.2f req/s (%s)", key,
                LoadSettings.formatLevel(capacity), after(unit), goodRequestsPerSecond, slo);
    }

    /**
     * "8 requests in flight cancelled when the verdict ended the level early: censored, not in the verdict; the
     * level's files count them as a plain run counts requests cancelled at its end (failures in results_error_rate,
     * warning REQUESTS_CANCELLED, out of goodput.judged_requests)".
     */
    static String cancelledClause(int cancelled) {
        return cancelled + (cancelled == 1 ? " request" : " requests") + " in flight cancelled when the verdict "
                + "ended the level early: censored, not in the verdict; the level's files count "
                + (cancelled == 1 ? "it" : "them") + " as a plain run counts requests cancelled at its end (failures "
                + "in results_error_rate, warning REQUESTS_CANCELLED, out of goodput.judged_requests)";
    }

    /** The bracket's confidence: each resolved end holds with 95 % (Bonferroni); null when an end is an estimate. */
    private static Double intervalConfidence(Probe low, Probe high) {
        double confidence = 1;
        for (Probe p : new Probe[]{low, high}) {
            if (p == null) continue;
            // a failure the client's send lag alone made is no server verdict to hold with any confidence
            if (!p.judgement().resolved() || p.clientBehind() || p.heldAtCap()) return null;
            confidence -= LevelJudge.ALPHA;
        }
        return Math.round(confidence * 1e6) / 1e6; // 0.9, not 0.8999999999999999
    }

    /**
     * "capacity: concurrency 4 (fails at 5; the bracket [4, 5] holds with 90 % confidence, each level's verdict at
     * 95 %); binding objective at the first failing level, concurrency 5: ttft_p90<=50ms (estimate 53.7 ms, 95 %
     * interval [50.2, 61.2])". The estimate is the failing level's, and says so: the capacity level met it.
     */
    static String foundVerdict(boolean interrupted, String key, String unit, double capacity, double failed,
                               Double confidence, ObjectiveResult binding) {
        return foundVerdict(interrupted, key, unit, capacity, failed, confidence, binding, "", "", false);
    }

    /**
     * As above, with a rate level's rates as run after its label ({@link #asRun}: "scheduled 7.01, sent 7.01 req/s",
     * or empty).
     */
    static String foundVerdict(boolean interrupted, String key, String unit, double capacity, double failed,
                               Double confidence, ObjectiveResult binding, String capacityAsRun, String failedAsRun) {
        return foundVerdict(interrupted, key, unit, capacity, failed, confidence, binding, capacityAsRun, failedAsRun,
                false);
    }

    /**
     * As above; {@code repeatFailed}: the capacity level failed its final repeat, so the bracket is no claim of any
     * confidence: "the bracket [7, 7.25] is unconfirmed: rate 7 failed when repeated at the end".
     */
    static String foundVerdict(boolean interrupted, String key, String unit, double capacity, double failed,
                               Double confidence, ObjectiveResult binding, String capacityAsRun, String failedAsRun,
                               boolean repeatFailed) {
        String rate = after(unit);
        String low = LoadSettings.formatLevel(capacity);
        String high = LoadSettings.formatLevel(failed);
        String bracket = repeatFailed ? String.format(Locale.ROOT, "; the bracket [%s, %s] is unconfirmed: %s %s%s "
                + "failed when repeated at the end, so no confidence is claimed", low, high, key, low, rate)
                : confidence == null ? "; a level decided on its point estimate"
                : String.format(Locale.ROOT, "; the bracket [%s, %s] holds with %.0f %% confidence, each level's "
                        + "verdict at %.0f %%", low, high, 100 * confidence, 100 * (1 - LevelJudge.ALPHA));
        return (interrupted ? "search stopped (Ctrl-C); best so far: " : "capacity: ") + key + " " + low + rate
                + " (" + (capacityAsRun.isEmpty() ? "" : capacityAsRun + "; ") + "fails at " + high + bracket
                + "); binding objective at the first failing level, " + key + " " + high + rate
                + (failedAsRun.isEmpty() ? "" : " (" + failedAsRun + ")") + ": " + describe(binding);
    }

    /**
     * "scheduled 7.01, sent 7.01 req/s": what a rate level's draw scheduled and its client sent (a Poisson or gamma
     * draw of a finite level is not its label); of sessions "scheduled 2.75, started 2.75 sessions/s", as the level's
     * summary says; empty for a concurrency level or when neither is known.
     */
    private static String asRun(Probe p, String unit) {
        if (p == null || p.report() == null) return "";
        double scheduled = scheduledRate(p.report());
        double sent = sentRate(p.report());
        if (Double.isNaN(scheduled) && Double.isNaN(sent)) return "";
        return String.format(Locale.ROOT, "scheduled %s, %s %s %s", rate(scheduled),
                unit.equals("sessions/s") ? "started" : "sent", rate(sent), unit);
    }

    private static String rate(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.2f", v) : "-";
    }

    /** The level's drawn schedule of arrivals (session starts with --turns), as its _open_loop.json has it. */
    private static double scheduledRate(ModelRun.LevelReport r) {
        return openLoop(r).map(o -> o.summary().scheduledRequestsPerSecond()).orElse(Double.NaN);
    }

    /** The rate at which the level's requests went out, as its _open_loop.json has it; NaN for a closed loop. */
    private static double sentRate(ModelRun.LevelReport r) {
        return openLoop(r).map(o -> o.summary().achievedSendRequestsPerSecond()).orElse(Double.NaN);
    }

    private static java.util.Optional<OpenLoopResult> openLoop(ModelRun.LevelReport r) {
        return r.outcome().run().filter(OpenLoopResult.class::isInstance).map(OpenLoopResult.class::cast);
    }

    /**
     * How much longer a closed-loop level's measured window is than the window its own requests used: the level's
     * files count to the end of the requests the search cancelled (its verdict or its limit ended the level), as a
     * plain run counts to its cut, but their time produced nothing, so the search's rates end with the last request
     * that ended by itself (at concurrency 1 a cancelled request would take up to one request's time off the rate).
     * 1 for an open loop (a cut schedule's window runs to the cut: the load was offered until then) or without a
     * cancelled request.
     */
    private double ownWindowScale(Probe p) {
        if (search.mode() != SearchPlan.Mode.CONCURRENCY || p == null || p.report() == null
                || p.report().run() == null) {
            return 1;
        }
        BenchmarkRun run = p.report().run();
        long windowEndMicros = Long.MIN_VALUE;
        long ownEndMicros = Long.MIN_VALUE;
        for (RequestRecord r : run.records()) {
            long end = r.startEpochMicros() + r.e2eNanos() / 1000;
            windowEndMicros = Math.max(windowEndMicros, end);
            boolean cancelled = r.failure() != null && r.failure().kind() == FailureKind.CANCELLED;
            if (!cancelled) ownEndMicros = Math.max(ownEndMicros, end);
        }
        if (ownEndMicros == Long.MIN_VALUE || ownEndMicros >= windowEndMicros) return 1;
        double own = run.durationNanos() - (windowEndMicros - ownEndMicros) * 1000.0;
        return own > 0 ? run.durationNanos() / own : 1;
    }

    private static Probe firstAt(List<Probe> probes, double load) {
        if (Double.isNaN(load)) return null;
        return probes.stream().filter(p -> p.load() == load && !p.phase().equals("repeat")).findFirst().orElse(null);
    }

    /**
     * "ttft_p99<=300ms (estimate 512 ms, 95 % interval [480, 530])"; misses that shared instants say so, "(estimate
     * 289.7 ms, 95 % interval [...]; 8 misses in 2 instants, the interval counts 2)".
     */
    static String describe(ObjectiveResult r) {
        String clustering = r.missClustering();
        return r.objective() + " (estimate " + describeEstimate(r) + (clustering.isEmpty() ? ""
                : "; " + clustering + ", the interval counts " + r.missEvents()) + ")";
    }

    /** "512.0 ms, 95 % interval [480.0 ms, 530.0 ms]". */
    private static String describeEstimate(ObjectiveResult r) {
        boolean ms = r.unit().equals("ms");
        return value(r.estimate(), ms) + ", 95 % interval [" + value(r.low(), ms) + ", " + value(r.high(), ms) + "]";
    }

    private static String value(double v, boolean ms) {
        if (Double.isNaN(v)) return "-";
        if (Double.isInfinite(v)) return "inf";
        return ms ? String.format(Locale.ROOT, "%.1f ms", v) : String.format(Locale.ROOT, "%.2f %%", 100 * v);
    }
}
