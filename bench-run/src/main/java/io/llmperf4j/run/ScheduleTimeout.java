package io.llmperf4j.run;

import io.llmperf4j.engine.load.ArrivalSchedule;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.OpenLoopSettings;

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
        if (plan.harness() != null || !plan.kind().open()) return Optional.empty();
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
                    LoadPlan.label(level), seconds(lastNanos), unsent, schedule.measuredArrivals()));
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

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e9);
    }
}
