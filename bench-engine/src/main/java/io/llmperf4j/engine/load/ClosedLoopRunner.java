package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * llmperf's closed loop (§6), run from the calling thread.
 *
 * <p>Slot {@code i} of {@code N} starts at prompt index {@code i mod M} and, after each of its requests ends,
 * advances by {@code N} (mod M); each slot keeps one request in flight and re-sends at once, with no think time.
 * ({@link ClosedLoopSettings.PromptOrder#SEND_ORDER} instead sends the specs in order, whichever slot is free.)
 * Differences from llmperf, on purpose:
 * <ul>
 *   <li>no over-issue (llmperf #82): a request is sent only while {@code completed + inFlight < maxCompleted}, so the
 *       server sees exactly as many requests as are recorded;</li>
 *   <li>failed requests are records like any other and count as completed (llmperf loses them);</li>
 *   <li>at the timeout, requests in flight are cancelled and recorded as CANCELLED, instead of running on.</li>
 * </ul>
 * Output tokens are counted with the {@link TokenCounter} on this thread (never an I/O thread) before a record is
 * kept and passed to the listener. The calling thread only waits on a queue the clients' completion callbacks feed,
 * so no Netty thread ever blocks on the runner. One run at a time per runner.
 */
public final class ClosedLoopRunner {

    /** How long cancelled requests get to produce their records before the runner records them itself. */
    static final Duration CANCEL_GRACE = Duration.ofSeconds(10);

    private static final Finished STOP = new Finished(-1, null, null);

    private final LlmClient client;
    private final TokenCounter tokenCounter;
    private final AtomicBoolean running = new AtomicBoolean();
    private volatile BlockingQueue<Finished> currentQueue;

    public ClosedLoopRunner(LlmClient client, TokenCounter tokenCounter) {
        this.client = Objects.requireNonNull(client, "client");
        this.tokenCounter = Objects.requireNonNull(tokenCounter, "tokenCounter");
    }

    public ClosedLoopResult run(List<RequestSpec> specs, ClosedLoopSettings settings) {
        return run(specs, settings, RecordListener.NONE);
    }

    /**
     * Runs until {@code maxCompleted} records exist, the timeout elapses, or {@link #stop()} is called.
     *
     * @param specs    the M prepared requests (llmperf pre-generates them before the clock starts)
     * @param listener told about each record, on this thread
     * @throws IllegalArgumentException when {@code specs} is empty
     * @throws IllegalStateException    when this runner is already running
     */
    public ClosedLoopResult run(List<RequestSpec> specs, ClosedLoopSettings settings, RecordListener listener) {
        Objects.requireNonNull(settings, "settings");
        List<RequestSpec> prompts = List.copyOf(specs);
        if (prompts.isEmpty()) throw new IllegalArgumentException("specs must not be empty");
        if (!running.compareAndSet(false, true)) throw new IllegalStateException("a run is already in progress");
        try {
            Run run = new Run(prompts, settings, listener == null ? RecordListener.NONE : listener);
            currentQueue = run.finished;
            return run.execute(timeoutNanos(settings.timeout()));
        } finally {
            currentQueue = null;
            running.set(false);
        }
    }

    /** Ends the current run early, from any thread: in-flight requests are cancelled and recorded. */
    public void stop() {
        BlockingQueue<Finished> q = currentQueue;
        if (q != null) q.add(STOP);
    }

    private static long timeoutNanos(Duration timeout) {
        long cap = Long.MAX_VALUE / 4; // deadline arithmetic must not overflow
        return timeout.compareTo(Duration.ofNanos(cap)) > 0 ? cap : timeout.toNanos();
    }

    /** A request's end, as queued by its completion callback. */
    private record Finished(int slot, RequestRecord record, Throwable error) {
    }

    /** The mutable state of one run, confined to the calling thread (except the queue). */
    private final class Run {
        private final List<RequestSpec> specs;
        private final int promptCount;
        private final int concurrency;
        private final int maxCompleted;
        private final boolean sendOrder;
        private final RecordListener listener;
        private final BlockingQueue<Finished> finished = new LinkedBlockingQueue<>();
        private final int[] nextIndex;
        private final RequestHandle[] handles;
        private final RequestSpec[] inFlightSpecs;
        private final List<RequestRecord> records = new ArrayList<>();
        private int inFlight;
        private int completed;
        private int sent;
        private boolean timedOut;
        private boolean stopped;

        Run(List<RequestSpec> specs, ClosedLoopSettings settings, RecordListener listener) {
            this.specs = specs;
            this.promptCount = specs.size();
            this.concurrency = settings.concurrency();
            this.maxCompleted = settings.maxCompleted().orElse(promptCount);
            this.sendOrder = settings.promptOrder() == ClosedLoopSettings.PromptOrder.SEND_ORDER;
            this.listener = listener;
            this.nextIndex = new int[concurrency];
            this.handles = new RequestHandle[concurrency];
            this.inFlightSpecs = new RequestSpec[concurrency];
            for (int slot = 0; slot < concurrency; slot++) nextIndex[slot] = slot % promptCount;
        }

        ClosedLoopResult execute(long timeoutNanos) {
            long startEpochMillis = System.currentTimeMillis();
            long startNanos = System.nanoTime();
            boolean clean = false;
            try {
                for (int slot = 0; slot < concurrency && mayLaunch(); slot++) launch(slot);
                runUntil(startNanos + timeoutNanos);
                cancelAndCollectInFlight();
                clean = true;
            } finally {
                if (!clean) cancelInFlight(); // a listener or the token counter threw: leave nothing running
            }
            long durationNanos = System.nanoTime() - startNanos;
            return new ClosedLoopResult(records, startEpochMillis, System.currentTimeMillis(), durationNanos, sent,
                    timedOut, stopped);
        }

        /** llmperf #82: never more requests than records to collect. */
        private boolean mayLaunch() {
            return completed + inFlight < maxCompleted;
        }

        private void launch(int slot) {
            RequestSpec spec = specs.get(sendOrder ? sent % promptCount : nextIndex[slot]);
            RequestHandle handle = client.send(spec);
            handles[slot] = handle;
            inFlightSpecs[slot] = spec;
            inFlight++;
            sent++;
            handle.completion().whenComplete((record, error) -> finished.add(new Finished(slot, record, error)));
        }

        private void runUntil(long deadlineNanos) {
            while (inFlight > 0) {
                long remaining = deadlineNanos - System.nanoTime();
                if (remaining <= 0) {
                    timedOut = true;
                    return;
                }
                Finished f;
                try {
                    f = finished.poll(remaining, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    stopped = true;
                    return;
                }
                if (f == null) continue;
                if (f == STOP) {
                    stopped = true;
                    return;
                }
                RequestRecord record = retire(f);
                nextIndex[f.slot()] = (nextIndex[f.slot()] + concurrency) % promptCount;
                if (mayLaunch()) launch(f.slot()); // re-send before the bookkeeping below, like a real user
                keep(record);
            }
        }

        private void cancelAndCollectInFlight() {
            if (inFlight == 0) return;
            cancelInFlight();
            boolean interrupted = Thread.interrupted();
            long graceDeadline = System.nanoTime() + CANCEL_GRACE.toNanos();
            while (inFlight > 0) {
                long remaining = graceDeadline - System.nanoTime();
                if (remaining <= 0) break;
                Finished f;
                try {
                    f = finished.poll(remaining, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                    continue;
                }
                if (f == null || f == STOP) continue;
                keep(retire(f));
            }
            // safety net: a client that never completes a cancelled request still leaves a record
            for (int slot = 0; slot < concurrency; slot++) {
                if (handles[slot] != null) {
                    keep(retire(new Finished(slot, unanswered(slot), null)));
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
        }

        private void cancelInFlight() {
            for (RequestHandle h : handles) {
                if (h != null) {
                    try {
                        h.cancel();
                    } catch (RuntimeException e) {
                        // best effort: the run is ending either way
                    }
                }
            }
        }

        private RequestRecord retire(Finished f) {
            int slot = f.slot();
            RequestRecord record = f.record();
            if (record == null) {
                record = failed(slot, new Failure(FailureKind.CLIENT_ERROR, -1,
                        "the client completed the request without a record: " + f.error()));
            }
            handles[slot] = null;
            inFlightSpecs[slot] = null;
            inFlight--;
            completed++;
            return record;
        }

        private void keep(RequestRecord record) {
            RequestRecord counted = record.withOutputTokens(tokenCounter.count(record.generatedText()));
            records.add(counted);
            listener.onRecord(counted);
        }

        private RequestRecord unanswered(int slot) {
            return failed(slot, new Failure(FailureKind.CANCELLED, -1,
                    "cancelled; the client gave no record within " + CANCEL_GRACE.toSeconds() + " s"));
        }

        private RequestRecord failed(int slot, Failure failure) {
            RequestSpec spec = inFlightSpecs[slot];
            Instant now = Instant.now();
            return new RequestRecord(spec.index(), handles[slot].clientRequestId(), null,
                    now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000L, RequestRecord.NEVER,
                    RequestRecord.NEVER, RequestRecord.NEVER, 0, null, "", spec.numberInputTokens(), spec.maxTokens(),
                    -1, null, null, null, failure);
        }
    }
}
