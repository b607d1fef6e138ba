package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;

import java.util.List;
import java.util.Objects;

/**
 * Runs any {@link LoadSettings} with the matching runner, for code that drives levels (sweeps, the harness). Unlike
 * the runners' own {@code stop()}, {@link #stop()} here is sticky: once called, a run in progress ends and any later
 * run ends at once, so a stop that races with the start of a run is never lost. Use one per run.
 */
public final class LoadRunner {

    private final LlmClient client;
    private final TokenCounter tokenCounter;
    private volatile boolean stopped;
    private volatile ClosedLoopRunner closedRunner;
    private volatile OpenLoopRunner openRunner;
    private volatile SessionRunner sessionRunner;

    public LoadRunner(LlmClient client, TokenCounter tokenCounter) {
        this.client = Objects.requireNonNull(client, "client");
        this.tokenCounter = Objects.requireNonNull(tokenCounter, "tokenCounter");
    }

    /** Runs {@code settings} on the calling thread; see {@link ClosedLoopRunner} and {@link OpenLoopRunner}. */
    public LoadResult run(List<RequestSpec> specs, LoadSettings settings, RecordListener listener) {
        Objects.requireNonNull(settings, "settings");
        RecordListener l = listener == null ? RecordListener.NONE : listener;
        if (specs instanceof PacedWorkload paced) return runPaced(paced, settings, l);
        if (settings instanceof ClosedLoopSettings closed) {
            ClosedLoopRunner runner = new ClosedLoopRunner(client, tokenCounter);
            closedRunner = runner;
            return runner.run(specs, closed, l, () -> stopped);
        }
        if (settings instanceof OpenLoopSettings open) {
            OpenLoopRunner runner = new OpenLoopRunner(client, tokenCounter);
            openRunner = runner;
            return runner.run(specs, open, l, () -> stopped);
        }
        throw new AssertionError("unknown settings " + settings.getClass());
    }

    /**
     * Sessions go to a {@link SessionRunner}; a trace of single requests goes to the open loop's pacer on the
     * trace's own timestamps (its send lag reported as for any open loop).
     */
    private LoadResult runPaced(PacedWorkload paced, LoadSettings settings, RecordListener l) {
        long[] starts = paced.startOffsetsNanos();
        if (!paced.multiTurn() && starts != null && settings instanceof OpenLoopSettings open) {
            OpenLoopRunner runner = new OpenLoopRunner(client, tokenCounter);
            openRunner = runner;
            return runner.run(paced, open, ArrivalSchedule.of(starts, 0), l, () -> stopped);
        }
        SessionRunner runner = new SessionRunner(client, tokenCounter);
        sessionRunner = runner;
        if (settings instanceof ClosedLoopSettings closed) return runner.runClosed(paced, closed, l, () -> stopped);
        return runner.runOpen(paced, (OpenLoopSettings) settings, l, () -> stopped);
    }

    /** Ends the current run (in-flight requests cancelled and recorded) and every later one; any thread. */
    public void stop() {
        stopped = true;
        ClosedLoopRunner c = closedRunner;
        if (c != null) c.stop();
        OpenLoopRunner o = openRunner;
        if (o != null) o.stop();
        SessionRunner s = sessionRunner;
        if (s != null) s.stop();
    }

    public boolean isStopped() {
        return stopped;
    }
}
