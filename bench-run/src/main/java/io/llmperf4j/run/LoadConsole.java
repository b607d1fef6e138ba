package io.llmperf4j.run;

import io.llmperf4j.report.summary.Plural;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.KeepUp;
import io.llmperf4j.engine.load.LatencyPercentiles;
import io.llmperf4j.engine.load.LevelSummary;
import io.llmperf4j.engine.load.LoadResult;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.OpenLoopSummary;
import io.llmperf4j.engine.load.SaturationVerdict;
import io.llmperf4j.report.metrics.Goodput;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The tables token-benchmark's load runs print on stdout: an open loop's schedule and latencies (before llmperf's
 * block), a sweep's table and verdict (the seed script's summary table), and a comparison of models. Undefined
 * values print as {@code -}; every line ends with "\n".
 */
final class LoadConsole {
    private static final String LATENCY_ROW = "%-26s %7s %10s %10s %10s %10s %10s%n";

    private LoadConsole() {
    }

    /**
     * The open loop in figures, e.g.
     * <pre>
     * Open loop: offered 5 req/s, poisson arrivals (seed 11111), at most 4 in flight
     * Rates: scheduled 5.12 req/s, sent 4.98 req/s, completed 4.90 req/s
     * Arrivals: 50 scheduled, 50 sent, 0 not sent; largest backlog 3 (due but not yet sent)
     * Kept up: yes: its successes ended at 99.6 % of the scheduled rate, 95 % interval 97.9-101.4 %, all of ...
     * latency (ms)                     n        p50        p90        p99      p99.9        max
     * send lag                        50      0.004      0.010      0.300      0.500      0.500
     * ...
     * </pre>
     *
     * @param sessionsWorkload the run's workload is multi-turn sessions (--turns), as its plan knows: "sessions/s"
     *                         and a {@code Sessions:} line even when the run was cut before any later turn
     */
    static String openLoop(OpenLoopResult result, boolean sessionsWorkload) {
        return openLoop(result, sessionsWorkload, null);
    }

    /**
     * As {@link #openLoop(OpenLoopResult, boolean)}, with the line saying whether the service kept up with the offer
     * after the arrivals ({@link SaturationVerdict#keptUpLine}; null: none).
     */
    static String openLoop(OpenLoopResult result, boolean sessionsWorkload, String keptUp) {
        OpenLoopSettings s = result.settings();
        OpenLoopSummary sum = result.summary();
        StringBuilder b = new StringBuilder();
        // multi-turn sessions: each arrival starts a session, the rates count sessions, the requests are their turns
        boolean sessions = sessions(result, sessionsWorkload);
        String cap = s.maxConcurrency().isPresent() ? "at most " + (sessions
                ? Plural.of(s.maxConcurrency().getAsInt(), "request") + " in flight"
                : s.maxConcurrency().getAsInt() + " in flight") : "no cap on requests in flight";
        Arrival.Trace trace = s.arrival() instanceof Arrival.Trace t ? t : null;
        if (trace != null) { // sent on the trace's timestamps: nothing drawn, no seed
            b.append(String.format(Locale.ROOT, "Open loop: trace replay of %s, %s, %s%n", trace.details(),
                    traceRate(trace, sum), cap));
        } else if (sessions) {
            b.append(String.format(Locale.ROOT, "Open loop: offered %s sessions/s, %s session arrivals (seed %d), "
                    + "%s%n", trim(sum.offeredRequestsPerSecond()), s.arrival(), s.seed(), cap));
        } else {
            b.append(String.format(Locale.ROOT, "Open loop: offered %s req/s, %s arrivals (seed %d), %s%n",
                    trim(sum.offeredRequestsPerSecond()), s.arrival(), s.seed(), cap));
        }
        if (sessions) {
            // a trace's requests without a session arrive too, each on its own: not sessions
            boolean singles = trace != null && trace.singles() > 0;
            String unit = singles ? trace.rateUnit() : "sessions/s";
            b.append(String.format(Locale.ROOT, "Rates: %s, completed %s req/s%n",
                    scheduledAndSent(s, sum, unit, "started", true), fixed(sum.completedRequestsPerSecond(), 2)));
            // a trace says how many of its requests (later turns too) were never sent; drawn sessions, the turns of
            // the sessions in progress when the run ended
            String notSent = ", " + (trace != null ? traceRequestsNotSent(result) : result.turnsNotSent())
                    + " not sent";
            b.append(String.format(Locale.ROOT, "%s: %d scheduled, %d started, %d not started; %d %s "
                            + "sent%s; largest backlog %d (turns due but not yet sent)%n",
                    singles ? "Sessions and single requests" : "Sessions", sum.arrivalsScheduled(),
                    sum.arrivalsScheduled() - sum.arrivalsNotSent(), sum.arrivalsNotSent(), sum.requestsSent(),
                    sum.requestsSent() == 1 ? "request (turn)" : "requests (turns)", notSent, sum.maxBacklog()));
        } else {
            b.append(String.format(Locale.ROOT, "Rates: %s, completed %s req/s%n",
                    scheduledAndSent(s, sum, "req/s", "sent", false), fixed(sum.completedRequestsPerSecond(), 2)));
            b.append(String.format(Locale.ROOT, "Arrivals: %d scheduled, %d sent, %d not sent; largest backlog %d "
                            + "(due but not yet sent)%n", sum.arrivalsScheduled(), sum.requestsSent(),
                    sum.arrivalsNotSent(), sum.maxBacklog()));
            if (keptUp != null) b.append(keptUp).append('\n');
        }
        // why arrivals were not sent (a trace counts its requests, later turns too)
        String unsent = trace != null ? traceNotSentWarning(result) : ScheduleTimeout.notSent(result);
        if (unsent != null) b.append("Warning: ").append(unsent).append('\n');
        if (sessions && trace == null) b.append(turnsNotSentWarning(result));
        b.append(String.format(Locale.ROOT, LATENCY_ROW, "latency (ms)", "n", "p50", "p90", "p99", "p99.9", "max"));
        latency(b, "send lag", sum.sendLag());
        latency(b, "TTFT from intended send", sum.ttftFromIntended());
        latency(b, "TTFT from actual send", sum.ttftFromActual());
        latency(b, "E2E from intended send", sum.e2eFromIntended());
        latency(b, "E2E from actual send", sum.e2eFromActual());
        b.append("From the intended send includes waiting behind the cap and the pacer's lag (what a user arriving ")
                .append("on schedule waits); the tables below and llmperf's files count from the actual send.\n");
        return b.toString();
    }

    /**
     * A closed loop of multi-turn sessions in figures, e.g.
     * <pre>
     * Sessions: 2 started; 4 requests (turns) sent, 2 not sent
     * Warning: 2 turns of the sessions in progress were not sent: the run's time limit came first (raise --timeout)
     * </pre>
     * empty for a closed loop without sessions. The turns not sent are those of sessions started and not ended when
     * the run ended ({@link ClosedLoopResult#turnsNotSent()}).
     *
     * @param sessionsWorkload the run's workload is sessions (--turns): known from the plan, not from the records,
     *                         since a run cut before any later turn has records that look like single requests
     */
    static String closedLoopSessions(ClosedLoopResult result, boolean sessionsWorkload) {
        if (!sessionsWorkload) return "";
        Set<String> ids = new HashSet<>();
        for (var r : result.records()) {
            if (r.tags().sessionId() != null) ids.add(r.tags().sessionId());
        }
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                "Sessions: %d started; %d %s sent, %d not sent%n", ids.size(), result.requestsSent(),
                result.requestsSent() == 1 ? "request (turn)" : "requests (turns)", result.turnsNotSent()));
        return b.append(turnsNotSentWarning(result)).toString();
    }

    /** "Warning: 2 turns of the sessions in progress were not sent: ..." when a run left some; else empty. */
    private static String turnsNotSentWarning(LoadResult result) {
        int turns = result.turnsNotSent();
        if (turns == 0) return "";
        return "Warning: " + turns + (turns == 1 ? " turn" : " turns") + " of the sessions in progress "
                + (turns == 1 ? "was" : "were") + " not sent: " + whyNotSent(result.timedOut(), result.stopped(),
                "the request budget came first") + "\n";
    }

    /** Why a run's turns were left unsent: its time limit, a stop, or {@code otherwise}. */
    private static String whyNotSent(boolean timedOut, boolean stopped, String otherwise) {
        return timedOut ? "the run's time limit came first (raise --timeout)" : stopped ? "the run was stopped"
                : otherwise;
    }

    /**
     * Whether the run's requests are turns of multi-turn sessions (each arrival starts a session), from what ran, not
     * from its records (a run cut before any later turn has none): a trace with sessions, or drawn arrivals of a
     * sessions workload ({@code sessionsWorkload}: --turns; a trace's paced workload says nothing, its count does).
     */
    static boolean sessions(OpenLoopResult result, boolean sessionsWorkload) {
        return result.settings().arrival() instanceof Arrival.Trace t ? t.sessions() > 0 : sessionsWorkload;
    }

    /**
     * A trace's requests never sent: its request count minus the requests sent (every arrival's and, with sessions,
     * every later turn's; a turn the run's end or a failed turn before it kept unsent counts); 0 for drawn arrivals.
     */
    static int traceRequestsNotSent(OpenLoopResult result) {
        if (!(result.settings().arrival() instanceof Arrival.Trace t)) return 0;
        return Math.max(0, t.requests() - result.summary().requestsSent());
    }

    /**
     * "2 of the trace's 4 requests were not sent: the run's time limit came first", or null when the whole trace was
     * sent (or the arrivals were drawn).
     */
    static String traceNotSentWarning(OpenLoopResult result) {
        int notSent = traceRequestsNotSent(result);
        if (notSent == 0) return null;
        String why = whyNotSent(result.timedOut(), result.stopped(),
                "a failed turn ends its session, its later turns unsent");
        int requests = ((Arrival.Trace) result.settings().arrival()).requests();
        return notSent + " of the trace's " + Plural.of(requests, "request") + " " + Plural.was(notSent)
                + " not sent: " + why;
    }

    /**
     * A trace's offered rate: "mean offered 2.67 req/s", with sessions "mean offered 5 sessions/s" (their starts:
     * later turns go on their delays), with single requests too "mean offered 16 arrivals/s"; arrivals at one instant
     * say what they sent, "all 3 requests at t=0 (a burst)", "all 2 sessions start at t=0"
     * ({@link Arrival.Trace#startsAtOneInstant}).
     */
    private static String traceRate(Arrival.Trace t, OpenLoopSummary sum) {
        return t.startsAtOneInstant().orElse("mean offered " + Arrival.Trace.significant(
                sum.offeredRequestsPerSecond()) + " " + t.rateUnit());
    }

    /**
     * "scheduled 5.12 req/s, sent 4.98 req/s" ({@code sentWord}: "started" for sessions). A rate that is not known is
     * left out with the reason, never a bare "-": a cluster that lost a load worker has neither (its share of the
     * schedule and its sends are unknown), "scheduled and sent rates not known: a load worker was lost (planned 16
     * req/s)"; a run of fewer than two arrivals or sends has no rate between them.
     */
    private static String scheduledAndSent(OpenLoopSettings s, OpenLoopSummary sum, String unit, String sentWord,
                                           boolean sessions) {
        boolean scheduledKnown = Double.isFinite(sum.scheduledRequestsPerSecond())
                || s.arrival() instanceof Arrival.Trace t && t.startsAtOneInstant().isPresent();
        boolean sentKnown = Double.isFinite(sum.achievedSendRequestsPerSecond());
        String planned = "planned " + trim(sum.offeredRequestsPerSecond()) + " " + unit;
        if (!scheduledKnown && sum.arrivalsScheduled() >= 2) { // only a merge that lost a worker leaves it unknown
            return "scheduled and " + sentWord + " rates not known: a load worker was lost, its share of the "
                    + "schedule untold (" + planned + ")";
        }
        String scheduled = scheduledKnown ? "scheduled " + scheduled(s, sum, unit)
                : "scheduled rate none (" + sum.arrivalsScheduled() + (sum.arrivalsScheduled() == 1 ? " arrival"
                : " arrivals") + "; " + planned + ")";
        int sentCount = sessions ? sum.arrivalsScheduled() - sum.arrivalsNotSent() : sum.requestsSent();
        String sent = sentKnown ? sentWord + " " + fixed(sum.achievedSendRequestsPerSecond(), 2) + " " + unit
                : sentCount < 2 ? sentWord + " rate none (" + sentCount + " " + sentWord + ": a rate needs two)"
                : sentWord + " rate not known";
        return scheduled + ", " + sent;
    }

    /**
     * The scheduled rate, "5.12 req/s"; a trace whose arrivals share one timestamp has none, and says what it sent
     * instead: "all 3 requests at t=0 (a burst)", "all sessions at t=0".
     */
    private static String scheduled(OpenLoopSettings s, OpenLoopSummary sum, String unit) {
        if (s.arrival() instanceof Arrival.Trace t && t.startsAtOneInstant().isPresent()) {
            return t.sessions() == 0 ? t.atOneInstant().get() : t.singles() == 0 ? "all sessions at t=0"
                    : "all arrivals at t=0";
        }
        return fixed(sum.scheduledRequestsPerSecond(), 2) + " " + unit;
    }

    private static void latency(StringBuilder b, String name, LatencyPercentiles p) {
        boolean none = p.count() == 0;
        b.append(String.format(Locale.ROOT, LATENCY_ROW, name, Long.toString(p.count()),
                none ? "-" : ms(p.p50Nanos()), none ? "-" : ms(p.p90Nanos()), none ? "-" : ms(p.p99Nanos()),
                none ? "-" : ms(p.p999Nanos()), none ? "-" : ms(p.maxNanos())));
    }

    /**
     * One level of a sweep or comparison, for {@link #levelTable}.
     *
     * @param slo     the level's {@code --slo} verdict in a word ("met", "missed (unresolved)"), or null: a table
     *                where no row has one has no SLO column
     * @param goodput the level's goodput (its summary's, as the sweep files keep it), or null: a table where no row
     *                has one (no {@code --slo} TTFT, TPOT or E2E bound) has no goodput columns
     */
    record Row(String name, LevelSummary summary, boolean aborted, String flags, String slo, Goodput goodput) {
        Row(String name, LevelSummary summary, boolean aborted, String flags) {
            this(name, summary, aborted, flags, null, null);
        }

        Row(String name, LevelSummary summary, boolean aborted, String flags, String slo) {
            this(name, summary, aborted, flags, slo, null);
        }
    }

    /**
     * The seed script's summary table: one row per level (or model), then nothing else. With {@code --slo}, each
     * level's goodput ("goodput req/s", "good": the figures its summary and the sweep files keep) and its verdict
     * ("SLO") come before the flags.
     *
     * @param firstColumn the first column's heading, e.g. "concurrency", "rate (req/s)", "model"
     */
    static String levelTable(String firstColumn, List<Row> rows) {
        List<String[]> cells = new ArrayList<>();
        boolean slo = rows.stream().anyMatch(row -> row.slo() != null); // --slo objectives: a column before the flags
        boolean goodput = rows.stream().anyMatch(row -> row.goodput() != null); // --slo latency bounds
        List<String> head = new ArrayList<>(List.of(firstColumn, "ok/total", "success", "output tok/s", "req/s",
                "TTFT p50 ms", "TTFT p90 ms", "E2E p50 ms", "E2E p90 ms"));
        if (goodput) head.addAll(List.of("goodput req/s", "good"));
        if (slo) head.add("SLO");
        head.add("");
        cells.add(head.toArray(String[]::new));
        for (Row row : rows) {
            LevelSummary s = row.summary();
            String flags = row.aborted() ? join("aborted", row.flags()) : row.flags();
            List<String> cell = new ArrayList<>(List.of(row.name(), s.successes() + "/" + s.total(),
                s.total() == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * s.successes() / s.total()),
                fixed(s.outputTokensPerSecond(), 1), fixed(s.requestsPerSecond(), 2), fixed(s.ttftP50Millis(), 1),
                fixed(s.ttftP90Millis(), 1), fixed(s.e2eP50Millis(), 1), fixed(s.e2eP90Millis(), 1)));
            if (goodput) {
                Goodput g = row.goodput();
                cell.add(g == null ? "-" : fixed(g.goodRequestsPerSecond(), 2));
                cell.add(g == null || !Double.isFinite(g.goodFraction()) ? "-"
                        : String.format(Locale.ROOT, "%.1f%%", 100 * g.goodFraction()));
            }
            if (slo) cell.add(row.slo() == null ? "-" : row.slo());
            cell.add(flags);
            cells.add(cell.toArray(String[]::new));
        }
        boolean namesFirst = firstColumn.equals("model"); // levels are numbers: right-aligned
        int cols = cells.get(0).length;
        int[] width = new int[cols];
        for (String[] row : cells) {
            for (int c = 0; c < cols; c++) width[c] = Math.max(width[c], row[c].length());
        }
        StringBuilder b = new StringBuilder();
        for (String[] row : cells) {
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < cols; c++) {
                if (c > 0) line.append("  ");
                String fill = " ".repeat(width[c] - row[c].length());
                boolean left = (c == 0 && namesFirst) || c >= cols - (slo ? 2 : 1); // words: left-aligned
                line.append(left ? row[c] + fill : fill + row[c]);
            }
            b.append(line.toString().stripTrailing()).append('\n');
        }
        return b.toString();
    }

    /**
     * The flags of level {@code i}: "saturation point", "knee", "TTFT red line", "first failures", "too short to
     * tell", "client behind" (only the client's send lag failed it).
     */
    static String flags(SaturationVerdict verdict, int i) {
        return flags(verdict, i, null);
    }

    /**
     * As {@link #flags(SaturationVerdict, int)}, with the level's figures: a level the verdict could not judge for
     * too few successes says so in its row, with its error rate ("not judged: 6 of 48 succeeded (87.5 % failed)"):
     * a level of refusals ends fast and its few successes' rates can look the best of the sweep.
     */
    static String flags(SaturationVerdict verdict, int i, LevelSummary summary) {
        String f = "";
        SaturationVerdict.LevelVerdict level = verdict.levels().get(i);
        if (level.fewSamples() && !level.interrupted()) {
            int failed = summary == null ? 0 : summary.total() - summary.successes();
            f = join(f, summary == null ? "not judged" : "not judged: " + summary.successes() + " of "
                    + summary.total() + " succeeded" + (failed <= 0 ? "" : String.format(Locale.ROOT,
                    " (%.1f %% failed)", 100.0 * failed / summary.total())));
        }
        if (verdict.saturationIndex().isPresent() && verdict.saturationIndex().getAsInt() == i) {
            f = join(f, "saturation point");
        }
        // the last level that grew before the saturation point: where to run
        if (verdict.kneeIndex().isPresent() && verdict.kneeIndex().getAsInt() == i) f = join(f, "knee");
        if (verdict.ttftRedLineIndex().isPresent() && verdict.ttftRedLineIndex().getAsInt() == i) {
            f = join(f, "TTFT red line");
        }
        if (verdict.firstFailingIndex().isPresent() && verdict.firstFailingIndex().getAsInt() == i) {
            f = join(f, "first failures");
        }
        // a rate level whose share's interval straddles the threshold: neither kept up nor behind, said on its row
        if (verdict.levels().get(i).keptUp() == KeepUp.Reading.CANNOT_TELL) f = join(f, "too short to tell");
        if (verdict.levels().get(i).keptUp() == KeepUp.Reading.CLIENT_BEHIND) f = join(f, "client behind");
        if (verdict.levels().get(i).keptUp() == KeepUp.Reading.AT_CAP) f = join(f, "at the cap");
        return f;
    }

    private static String join(String a, String b) {
        if (a.isEmpty()) return b;
        if (b.isEmpty()) return a;
        return a + ", " + b;
    }

    static String ms(double nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
    }

    static String fixed(double value, int decimals) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%." + decimals + "f", value) : "-";
    }

    private static String trim(double value) {
        return LoadSettings.formatLevel(value);
    }
}
