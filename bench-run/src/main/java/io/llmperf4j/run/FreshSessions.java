package io.llmperf4j.run;

import io.llmperf4j.engine.load.PacedWorkload;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestSpec;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * The sessions a level of synthetic sessions starts after its own ({@link PacedWorkload#withMoreSessions}): a level
 * that sends for a time (or for more requests than the workload holds) keeps starting new sessions with prompts of
 * their own, as {@link io.llmperf4j.engine.load.FreshRequests} gives every request its own, instead of playing its
 * sessions again for the server's prefix cache to serve. Batch k (k &gt;= 1) is the same workload of sessions drawn
 * from a seed of k's, so the same --seed starts the same sessions again; its sessions are numbered on from the
 * level's own ({@code s4}, {@code s5}, ... after {@code s0}-{@code s3}) and its prompt indices on from the level's
 * requests, so no two sessions of the level share an id or a prompt index. Drawing costs 0.05-0.7 ms a prompt, too
 * much for the session loop's thread: a thread of its own keeps {@code ahead} sessions drawn past the last one asked
 * for, the first of them from construction (before the level's clock starts). A session start that finds its session
 * not drawn yet waits for it, and is counted: at the run's end one line says how many waited and how long, as
 * FreshRequests says of the sends that waited for a prompt.
 */
final class FreshSessions implements PacedWorkload.MoreSessions {
    /** How long the drawing thread waits for a new ask before it ends (the next ask starts another). */
    private static final long LINGER_MILLIS = 1_000;

    private final IntFunction<PacedWorkload> batches;
    private final int ahead;
    private final int firstSessions;
    private final int firstRequests;
    private final Consumer<String> notices;
    // guarded by this
    private final List<List<RequestSpec>> drawn = new ArrayList<>();
    private int drawnRequests;
    private int batch;
    private int wanted;
    private boolean drawing;
    private RuntimeException failed;
    // since the last runEnded: sessions asked for, those that waited to be drawn, and the time they waited
    private int asked;
    private int waits;
    private long waitNanos;

    /**
     * @param level   the level's own sessions (batch 0)
     * @param batches batch k &gt;= 1: the same for the same k
     * @param ahead   sessions kept drawn past the last asked for, &gt;= 1
     * @param notices told, at the end of a run, when session starts waited for a draw (one line)
     */
    FreshSessions(PacedWorkload level, IntFunction<PacedWorkload> batches, int ahead, Consumer<String> notices) {
        this.batches = Objects.requireNonNull(batches, "batches");
        this.notices = Objects.requireNonNull(notices, "notices");
        if (ahead < 1) throw new IllegalArgumentException("ahead must be >= 1");
        this.ahead = ahead;
        this.firstSessions = level.sessionList().size();
        this.firstRequests = level.size();
        synchronized (this) {
            wanted = ahead;
            startDrawing();
        }
    }

    @Override
    public synchronized List<RequestSpec> session(int n) {
        wanted = Math.max(wanted, n + 1 + ahead);
        notifyAll(); // a lingering drawing thread goes on
        // refill once half the margin is used: the drawing thread is not restarted at every session
        if (drawn.size() < n + 1 + ahead / 2) startDrawing();
        asked++;
        long waitedFrom = drawn.size() <= n && failed == null ? System.nanoTime() : 0;
        boolean interrupted = false;
        while (drawn.size() <= n && failed == null) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true; // the session is needed all the same; the interrupt is kept for the caller
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
        if (drawn.size() <= n) throw failed;
        if (waitedFrom != 0) {
            waits++;
            waitNanos += System.nanoTime() - waitedFrom;
        }
        return drawn.get(n);
    }

    /** Says, in one line, how many of the run's fresh sessions waited to be drawn; counts afresh for the next run. */
    @Override
    public void runEnded() {
        String line = null;
        synchronized (this) {
            if (waits > 0) {
                line = String.format(Locale.ROOT, "llmperf4j: sessions: %d of %d fresh sessions started waited for "
                        + "their prompts to be drawn (%.1f ms in all): drawing fell behind the session starts", waits,
                        asked, waitNanos / 1e6);
            }
            asked = 0;
            waits = 0;
            waitNanos = 0;
        }
        if (line != null) notices.accept(line);
    }

    /** Whether the drawing thread is running: for tests. */
    synchronized boolean drawing() {
        return drawing;
    }

    private void startDrawing() {
        if (drawing || failed != null) return;
        drawing = true;
        Thread t = new Thread(this::draw, "llmperf4j-session-draws");
        t.setDaemon(true);
        t.start();
    }

    private void draw() {
        while (true) {
            int k;
            synchronized (this) {
                long until = System.currentTimeMillis() + LINGER_MILLIS;
                while (drawn.size() >= wanted) {
                    long left = until - System.currentTimeMillis();
                    if (left <= 0) {
                        drawing = false;
                        return;
                    }
                    try {
                        wait(left);
                    } catch (InterruptedException e) {
                        drawing = false;
                        return;
                    }
                }
                k = ++batch;
            }
            List<List<RequestSpec>> sessions;
            try {
                sessions = batches.apply(k).sessionList();
            } catch (RuntimeException e) {
                synchronized (this) {
                    failed = e;
                    drawing = false;
                    notifyAll();
                }
                return;
            }
            synchronized (this) {
                for (List<RequestSpec> turns : sessions) {
                    String id = "s" + (firstSessions + drawn.size());
                    List<RequestSpec> renamed = new ArrayList<>(turns.size());
                    for (RequestSpec t : turns) renamed.add(renamed(t, id, firstRequests + drawnRequests++));
                    drawn.add(List.copyOf(renamed));
                }
                notifyAll();
            }
        }
    }

    /** {@code turn} as session {@code id}'s, with prompt index {@code index}. */
    private static RequestSpec renamed(RequestSpec turn, String id, int index) {
        RequestInputs in = turn.inputs();
        return new RequestSpec(index, turn.prompt(), turn.numberInputTokens(), turn.maxTokens(),
                new RequestInputs(in.systemPrompt(), in.history(), in.images(), id, in.turn()));
    }
}
