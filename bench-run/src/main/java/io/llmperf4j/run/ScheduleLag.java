package io.llmperf4j.run;

import io.llmperf4j.model.RequestRecord;

/**
 * Which sends are judged from their intended send (goodput, the {@code --slo} verdict, a capacity search's level
 * verdict): an open loop's arrivals, due at the schedule's instants (a request, a session's first turn), whose lag
 * is the wait the load imposed. A send due at a time the client set itself (a session's later turn, after its think
 * time; a failed session's rest, whose turns keep their places; a closed loop's next session, when its slot freed)
 * is judged from its actual send: its lag is the client's pace, which SENT_LATE does not count and TURNS_SENT_LATE
 * says. The main run and the capacity search read this one rule.
 */
final class ScheduleLag {
    private ScheduleLag() {
    }

    /** Whether {@code r}, a request of an open loop ({@code openLoop}) or not, was due at its schedule's instant. */
    static boolean dueAtTheSchedule(boolean openLoop, RequestRecord r) {
        return openLoop && (r.tags().sessionId() == null || r.tags().turn() <= 0);
    }
}
