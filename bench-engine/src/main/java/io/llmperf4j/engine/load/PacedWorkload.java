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
    /** One more than the highest replay pass among the workload's own session ids (a dataset replayed: c1, c1~1). */
    private final int ownPasses;
    /** The sessions after the workload's own; null: the workload's sessions are played again. */
    private final MoreSessions more;

    /**
     * The sessions a run starts after the workload's own (a level that sends for a time, or for more requests than
     * the workload holds): fresh ones, so that no session resends a prompt the server's prefix cache holds.
     */
    @FunctionalInterface
    public interface MoreSessions {
        /**
         * The {@code n}-th session after the workload's own (0-based): its turns in order, one session id, prompt
         * indices of their own. May block until drawn; the same for the same {@code n}.
         */
        List<RequestSpec> session(int n);

        /**
         * Told when a run that started these sessions ends: the place to say what it found (sessions it had to wait
         * for, as {@link FreshRequests} tells the sends that waited for a prompt). Nothing by default.
         */
        default void runEnded() {
        }
    }

    /**
     * The session a run starts as its {@code k}-th.
     *
     * @param id the id its requests carry: the turns' own, or a replay's {@code <id>~<pass>}; null outside sessions
     */
    public record Start(List<RequestSpec> turns, String id) {
    }

    private PacedWorkload(List<RequestSpec> specs, long[] startOffsetsNanos, ThinkTime thinkTime) {
        this(specs, startOffsetsNanos, thinkTime, null);
    }

    private PacedWorkload(List<RequestSpec> specs, long[] startOffsetsNanos, ThinkTime thinkTime, MoreSessions more) {
        this.more = more;
        this.specs = List.copyOf(specs);
        if (this.specs.isEmpty()) throw new IllegalArgumentException("a workload needs at least one request");
        this.thinkTime = Objects.requireNonNull(thinkTime, "thinkTime");
        this.sessions = group(this.specs);
        this.ownPasses = sessions.stream().mapToInt(t -> pass(t.get(0).inputs().sessionId()) + 1).max().orElse(1);
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

    /**
     * This workload, whose run starts {@code more}'s sessions once it has started its own, instead of playing its
     * own again. Not for a trace (its sessions start at its own times).
     */
    public PacedWorkload withMoreSessions(MoreSessions more) {
        if (startOffsetsNanos != null) throw new IllegalStateException("a trace plays its own sessions");
        return new PacedWorkload(specs, null, thinkTime, Objects.requireNonNull(more, "more"));
    }

    /** Whether a run starts fresh sessions after the workload's own ({@link #withMoreSessions}), not replays. */
    public boolean hasMoreSessions() {
        return more != null;
    }

    /**
     * The run's {@code k}-th session (0-based): the workload's own first; then {@link #withMoreSessions}'s, or the
     * workload's played again, each replay's id suffixed {@code ~pass} ({@code s0~1}). A workload whose own ids are
     * passes already (a ShareGPT dataset replayed: {@code c1}, {@code c1~1}) has its replays numbered after them, so no
     * two sessions of a run share an id.
     */
    public Start start(int k) {
        int n = sessions.size();
        if (k < n) return new Start(sessions.get(k), sessions.get(k).get(0).inputs().sessionId());
        if (more != null) {
            List<RequestSpec> turns = more.session(k - n);
            return new Start(turns, turns.get(0).inputs().sessionId());
        }
        List<RequestSpec> turns = sessions.get(k % n);
        String id = turns.get(0).inputs().sessionId();
        if (id == null) return new Start(turns, null);
        int pass = pass(id);
        String root = pass == 0 ? id : id.substring(0, id.lastIndexOf('~'));
        return new Start(turns, root + "~" + (k / n * ownPasses + pass));
    }

    /** The replay pass an id names ({@code s0~2}: 2); 0 for an id without one ({@code s0}, {@code s0~t2}, null). */
    private static int pass(String id) {
        int tilde = id == null ? -1 : id.lastIndexOf('~');
        if (tilde < 1 || tilde == id.length() - 1 || id.length() - tilde > 7) return 0;
        for (int i = tilde + 1; i < id.length(); i++) {
            if (id.charAt(i) < '0' || id.charAt(i) > '9') return 0;
        }
        return Integer.parseInt(id.substring(tilde + 1));
    }

    /** Tells {@link #withMoreSessions}'s sessions that a run of this workload ended ({@link MoreSessions#runEnded}). */
    public void runEnded() {
        if (more != null) more.runEnded();
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
