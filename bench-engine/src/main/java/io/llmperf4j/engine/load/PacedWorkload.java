package io.llmperf4j.engine.load;

import io.llmperf4j.model.RequestSpec;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Requests that carry their own pacing beyond the load settings: multi-turn sessions (the turns of a session are
 * sent one after another, each with the session's history, after a think time), and fixed start times (a replayed
 * trace). It is the request list itself, so it travels wherever a workload goes; {@link LoadRunner} sees it and
 * runs it with {@link SessionRunner}, or, for a trace without sessions, with {@link OpenLoopRunner} on the trace's
 * schedule.
 *
 * <p>A session is the requests sharing {@link io.llmperf4j.model.RequestInputs#sessionId()}, in turn order; a
 * request without a session id is a session of one turn.
 */
public final class PacedWorkload extends AbstractList<RequestSpec> {

    /** The wait between a reply and the next turn of its session. */
    @FunctionalInterface
    public interface ThinkTime {
        ThinkTime NONE = turn -> 0L;

        /** Nanoseconds to wait before sending {@code turn} (turn index >= 1) once the previous reply has ended. */
        long nanosBefore(RequestSpec turn);
    }

    private final List<RequestSpec> specs;
    private final long[] startOffsetsNanos;
    private final ThinkTime thinkTime;
    private final List<List<RequestSpec>> sessions;

    private PacedWorkload(List<RequestSpec> specs, long[] startOffsetsNanos, ThinkTime thinkTime) {
        this.specs = List.copyOf(specs);
        if (this.specs.isEmpty()) throw new IllegalArgumentException("a workload needs at least one request");
        this.thinkTime = Objects.requireNonNull(thinkTime, "thinkTime");
        this.sessions = group(this.specs);
        if (startOffsetsNanos != null) {
            if (startOffsetsNanos.length != sessions.size()) {
                throw new IllegalArgumentException(startOffsetsNanos.length + " start times for " + sessions.size()
                        + " sessions");
            }
            ArrivalSchedule.of(startOffsetsNanos, 0); // validates: >= 0, non-decreasing
        }
        this.startOffsetsNanos = startOffsetsNanos == null ? null : startOffsetsNanos.clone();
    }

    /** Sessions whose starts the load settings pace (closed loop: sessions in flight; open loop: arrivals). */
    public static PacedWorkload sessions(List<RequestSpec> specs, ThinkTime thinkTime) {
        return new PacedWorkload(specs, null, thinkTime);
    }

    /**
     * A trace: session {@code i} (in order of first appearance) starts at {@code startOffsetsNanos[i]} from the run's
     * start, whatever the load settings say.
     */
    public static PacedWorkload trace(List<RequestSpec> specs, long[] startOffsetsNanos, ThinkTime thinkTime) {
        return new PacedWorkload(specs, Objects.requireNonNull(startOffsetsNanos, "startOffsetsNanos"), thinkTime);
    }

    private static List<List<RequestSpec>> group(List<RequestSpec> specs) {
        Map<String, List<RequestSpec>> byId = new LinkedHashMap<>();
        int single = 0;
        for (RequestSpec s : specs) {
            String id = s.inputs().sessionId();
            byId.computeIfAbsent(id == null ? "\u0000" + single++ : id, k -> new ArrayList<>()).add(s);
        }
        List<List<RequestSpec>> out = new ArrayList<>(byId.size());
        for (List<RequestSpec> turns : byId.values()) {
            turns.sort((a, b) -> Integer.compare(a.inputs().turn(), b.inputs().turn()));
            out.add(List.copyOf(turns));
        }
        return List.copyOf(out);
    }

    @Override
    public RequestSpec get(int index) {
        return specs.get(index);
    }

    @Override
    public int size() {
        return specs.size();
    }

    /** The sessions, each its turns in order. */
    public List<List<RequestSpec>> sessionList() {
        return sessions;
    }

    /** Whether some session has more than one turn. */
    public boolean multiTurn() {
        return sessions.size() < specs.size();
    }

    /** The fixed start times of the sessions (a trace), or null when the load settings pace them. */
    public long[] startOffsetsNanos() {
        return startOffsetsNanos == null ? null : startOffsetsNanos.clone();
    }

    public ThinkTime thinkTime() {
        return thinkTime;
    }
}
