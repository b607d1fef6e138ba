package io.llmperf4j.run;

import io.llmperf4j.engine.load.ArrivalSchedule;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.PacedWorkload;
import io.llmperf4j.model.RequestSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * An open loop's schedule against its {@code --timeout}, which ends each level (warmup included) whether or not its
 * last arrival was sent: the default 90 s cuts a schedule of 300 arrivals at 0.5 req/s after about 45 of them. Said
 * before the run ({@link #beforeRun}), once the endpoint answered, and after it ({@link #notSent}) with the count.
 */
final class ScheduleTimeout {
    private ScheduleTimeout() {
    }

    /**
     * "llmperf4j: warning: the schedule needs 613.2 s to its last arrival, but --timeout ends the run after 90 s: 255
     * of its 300 arrivals would not be sent; give --timeout 614 or more (and time for the last requests to end) to
     * run it all"; a sweep names its levels cut: "... the schedules of rate 0.5 req/s (613.2 s to its last arrival,
     * 255 of 300 arrivals not sent), rate 1 req/s (...) outlast --timeout, which ends each level after 90 s; ...".
     * Empty when every open-loop level's schedule ends within its timeout (and for iterations, whose forks end on
     * their own time).
     */
    static Optional<String> beforeRun(LoadPlan plan) {
        return beforeRun(plan, List.of());
    }

    /**
     * As {@link #beforeRun(LoadPlan)} for the run's {@code requests}: when they are multi-turn sessions
     * ({@link PacedWorkload}) the schedule's arrivals are the sessions' first turns, as {@link
     * io.llmperf4j.engine.load.SessionRunner} uses them (with a request budget, one per session); their later turns
     * follow the replies and think times, which no schedule holds, so only a session's start is judged, and the
     * turns its think times alone would put past the timeout: "the schedule's 4 sessions start by 1.5 s, within
     * --timeout 3 s, but their think times alone put 6 of their 16 turns after it: at least 6 turns would not be
     * sent; ...".
     */
    static Optional<String> beforeRun(LoadPlan plan, List<RequestSpec> requests) {
        if (plan.harness() != null || !plan.kind().open()) return Optional.empty();
        if (requests instanceof PacedWorkload paced) return sessions(plan, paced);
        List<String> cut = new ArrayList<>();
        String single = null;
        long longestNanos = 0;
        long timeoutSeconds = 0;
        for (LoadSettings level : plan.profile().levels(plan.warmup())) {
            if (!(level instanceof OpenLoopSettings open)) continue;
            ArrivalSchedule schedule = open.schedule();
            if (schedule.size() == 0) continue;
            long timeoutNanos = open.timeout().toNanos();
            long lastNanos = schedule.lastOffsetNanos();
            if (lastNanos < timeoutNanos) continue;
            int unsent = 0;
            for (int i = schedule.warmupArrivals(); i < schedule.size(); i++) {
                if (schedule.offsetNanos(i) >= timeoutNanos) unsent++;
            }
            timeoutSeconds = open.timeout().toSeconds();
            longestNanos = Math.max(longestNanos, lastNanos);
            single = String.format(Locale.ROOT, "the schedule needs %s s to its last arrival, but --timeout ends the "
                    + "run after %d s: %d of its %d arrivals would not be sent", seconds(lastNanos), timeoutSeconds,
                    unsent, schedule.measuredArrivals());
            cut.add(String.format(Locale.ROOT, "%s (%s s to its last arrival, %d of %d arrivals not sent)",
                    plan.levelLabel(level), seconds(lastNanos), unsent, schedule.measuredArrivals()));
        }
        if (cut.isEmpty()) return Optional.empty();
        String what = plan.multiLevel() ? "the schedule" + (cut.size() == 1 ? " of " : "s of ") + String.join(", ", cut)
                + (cut.size() == 1 ? " outlasts" : " outlast") + " --timeout, which ends each level after "
                + timeoutSeconds + " s" : single;
        return Optional.of("llmperf4j: warning: " + what + "; give --timeout " + (longestNanos / 1_000_000_000L + 1)
                + " or more (and time for the last requests to end) to run it all");
    }

    /**
     * Why {@code result}'s arrivals were not sent, with the count: "10 of the 50 arrivals were not sent: the 90 s
     * --timeout ended the run before the schedule's last arrival (at 101.6 s; give --timeout 102 or more to send
     * them all)", "... the run was stopped", "... a load worker was lost before it sent them"; null when every
     * arrival was sent.
     */
    static String notSent(OpenLoopResult result) {
        return notSent(result, "run");
    }

    /** As {@link #notSent(OpenLoopResult)}, naming what the timeout ended: "run", or a sweep's "level". */
    static String notSent(OpenLoopResult result, String ended) {
        int notSent = result.arrivalsNotSent();
        if (notSent == 0) return null;
        int all = result.warmupArrivals() + result.measuredArrivals();
        String why;
        if (result.timedOut()) {
            long lastNanos = result.settings().schedule().lastOffsetNanos();
            why = "the " + result.settings().timeout().toSeconds() + " s --timeout ended the " + ended + " before the "
                    + "schedule's last arrival (at " + seconds(lastNanos) + " s; give --timeout "
                    + (lastNanos / 1_000_000_000L + 1) + " or more to send them all)";
        } else if (result.stopped()) {
            why = "the run was stopped";
        } else {
            why = "the load worker that was to send them was lost";
        }
        return notSent + " of the " + all + (all == 1 ? " arrival" : " arrivals") + (notSent == 1 ? " was" : " were")
                + " not sent: " + why;
    }

    /** {@link #beforeRun(LoadPlan, List)} for sessions: their starts, then their think times, against the timeout. */
    private static Optional<String> sessions(LoadPlan plan, PacedWorkload paced) {
        List<List<RequestSpec>> sessions = paced.sessionList();
        for (LoadSettings level : plan.profile().levels(plan.warmup())) {
            if (!(level instanceof OpenLoopSettings open)) continue;
            long[] starts = paced.startOffsetsNanos();
            if (starts == null) {
                starts = open.schedule().offsetsNanos();
                // a request budget: one arrival per session (its turns are the requests), as the runner uses them
                if (open.maxRequests().isPresent() && starts.length > sessions.size()) {
                    starts = java.util.Arrays.copyOf(starts, sessions.size());
                }
            }
            long timeoutNanos = open.timeout().toNanos();
            int turns = 0;
            int cutStarts = 0;
            int cutTurns = 0;
            for (int i = 0; i < starts.length; i++) {
                List<RequestSpec> session = sessions.get(i % sessions.size());
                if (starts[i] >= timeoutNanos) cutStarts++;
                long due = starts[i];
                for (int t = 0; t < session.size(); t++) {
                    if (t > 0) due += paced.thinkTime().nanosBefore(session.get(t));
                    if (due >= timeoutNanos) cutTurns++;
                }
                turns += session.size();
            }
            if (cutTurns == 0) continue;
            long last = starts[starts.length - 1];
            long timeoutSeconds = open.timeout().toSeconds();
            String what = cutStarts > 0
                    ? String.format(Locale.ROOT, "the schedule needs %s s to its last session's start, but --timeout "
                    + "ends the run after %d s: %d of its %d sessions would not start, and at least %d of their %d "
                    + "turns would not be sent; give --timeout %d or more (and time for the sessions' later turns "
                    + "and replies) to run it all", seconds(last), timeoutSeconds, cutStarts, starts.length, cutTurns,
                    turns, last / 1_000_000_000L + 1)
                    : String.format(Locale.ROOT, "the schedule's %d sessions start by %s s, within --timeout %d s, "
                    + "but their think times alone put %d of their %d turns after it: at least %d turns would not be "
                    + "sent (their replies' time adds to it); raise --timeout to run them all", starts.length,
                    seconds(last), timeoutSeconds, cutTurns, turns, cutTurns);
            return Optional.of("llmperf4j: warning: " + what);
        }
        return Optional.empty();
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e9);
    }
}
