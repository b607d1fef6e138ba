package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.engine.overhead.ClientOverheadMonitor;
import io.llmperf4j.model.ClientTokenCount;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * llmperf's closed loop (§6), run from the calling thread.
 *
 * <p>Slot {@code i} of {@code N} starts at prompt index {@code i mod M} and, after each of its requests ends,
 * advances by {@code N} (mod M); each slot keeps one request in flight and re-sends at once, with no think time.
 * Differences from llmperf, on purpose:
 * <ul>
 *   <li>no over-issue (llmperf #82): a request is sent only while {@code completed + inFlight < maxCompleted}, so the
 *       server sees exactly as many requests as are recorded;</li>
 *   <li>failed requests are records like any other and count as completed (llmperf loses them);</li>
 *   <li>at the timeout, requests in flight are cancelled and recorded as CANCELLED, instead of running on;</li>
 *   <li>an optional {@link Warmup}: the first requests (by count, or sent before a duration has passed) are kept
 *       apart as warmup records; the load goes on without a pause and the measured window starts at the first
 *       measured send; {@code maxCompleted} counts measured records only.</li>
 * </ul>
 * Each record's send time is kept in the result's {@link ClosedLoopResult#timeline() timeline} (intended equals
 * actual in a closed loop). Before the clock starts, the client is asked to open one connection per slot
 * ({@link LlmClient#preconnect}); their connect times are in {@link ClosedLoopResult#preconnectNanos()}.
 * Output tokens (and, with a counter that knows offsets, tokens per content event; see {@link ClientTokenCount})
 * are counted with the {@link TokenCounter} on this thread (never an I/O thread) before a record is kept and passed
 * to the listener. The calling thread only waits on a queue the clients' completion callbacks feed,
 * so no Netty thread ever blocks on the runner. The client's own overhead is watched during the run
 * ({@link ClientOverheadMonitor}) and kept in the result. One run at a time per runner.
 */
public final class ClosedLoopRunner {


    private static final Finished STOP = new Finished(-1, -1, null, null);

    private final LlmClient client;
    private final TokenCounter tokenCounter;
    private final RunGuard<Finished> guard = new RunGuard<>(STOP);

    public ClosedLoopRunner(LlmClient client, TokenCounter tokenCounter) {
        this.client = Objects.requireNonNull(client, "client");
        this.tokenCounter = Objects.requireNonNull(tokenCounter, "tokenCounter");
    }

    public ClosedLoopResult run(List<RequestSpec> specs, ClosedLoopSettings settings) {
        return run(specs, settings, RecordListener.NONE);
    }

    /**
     * Runs until {@code maxCompleted} measured records exist, the timeout elapses, or {@link #stop()} is called.
     *
     * @param specs    the M prepared requests (llmperf pre-generates them before the clock starts)
     * @param listener told about each record (warmup ones flagged), on this thread
     * @throws IllegalArgumentException when {@code specs} is empty
     * @throws IllegalStateException    when this runner is already running
     */
    public ClosedLoopResult run(List<RequestSpec> specs, ClosedLoopSettings settings, RecordListener listener) {
        return run(specs, settings, listener, () -> false);
    }

    /** As {@link #run(List, ClosedLoopSettings, RecordListener)}; ends at once when {@code stopped} is already true. */
    ClosedLoopResult run(List<RequestSpec> specs, ClosedLoopSettings settings, RecordListener listener,
                         BooleanSupplier stopped) {
        Objects.requireNonNull(settings, "settings");
        List<RequestSpec> prompts = List.copyOf(specs);
        if (prompts.isEmpty()) throw new IllegalArgumentException("specs must not be empty");
        guard.begin();
        try {
            Run run = new Run(prompts, settings, listener == null ? RecordListener.NONE : listener);
            guard.attach(run.finished, stopped.getAsBoolean());
            try (ClientOverheadMonitor overhead = ClientOverheadMonitor.start(client)) {
                ClosedLoopResult result = run.execute(Deadlines.cappedNanos(settings.timeout()));
                return result.withClientOverhead(overhead.stop());
            }
        } finally {
            guard.end();
        }
    }

    /** Ends the current run early, from any thread: in-flight requests are cancelled and recorded. */
    public void stop() {
        guard.stop();
    }

    /** A request's end, as queued by its completion callback. */
    private record Finished(int slot, int launch, RequestRecord record, Throwable error) {
    }

    /** The mutable state of one run, confined to the calling thread (except the queue). */
    private final class Run {
        private final List<RequestSpec> specs;
        private final ClosedLoopSettings settings;
        private final int promptCount;
        private final int concurrency;
        private final int maxCompleted;
        private final Warmup warmup;
        private final boolean sendOrder;
        private final RecordListener listener;
        private final BlockingQueue<Finished> finished = new LinkedBlockingQueue<>();
        private final int[] nextIndex;
        private final RequestHandle[] handles;
        private final RequestSpec[] inFlightSpecs;
        private final long[] sendNanos;
        private final int[] launchNumber;
        private final boolean[] warmupSlot;
        private final List<RequestRecord> records = new ArrayList<>();
        private final List<RequestRecord> warmupRecords = new ArrayList<>();
        private final List<ScheduledRecord> timeline = new ArrayList<>();
        private long startNanos;
        private long measureStartNanos = -1;
        private int inFlight;
        private int measuredInFlight;
        private int measuredCompleted;
        private int launches;
        private int sent;
        private boolean timedOut;
        private boolean stopped;

        Run(List<RequestSpec> specs, ClosedLoopSettings settings, RecordListener listener) {
            this.specs = specs;
            this.settings = settings;
            this.promptCount = specs.size();
            this.concurrency = settings.concurrency();
            this.maxCompleted = settings.maxCompleted().orElse(promptCount);
            this.warmup = settings.warmup();
            this.sendOrder = settings.promptOrder() == ClosedLoopSettings.PromptOrder.SEND_ORDER;
            this.listener = listener;
            this.nextIndex = new int[concurrency];
            this.handles = new RequestHandle[concurrency];
            this.inFlightSpecs = new RequestSpec[concurrency];
            this.sendNanos = new long[concurrency];
            this.launchNumber = new int[concurrency];
            this.warmupSlot = new boolean[concurrency];
            for (int slot = 0; slot < concurrency; slot++) nextIndex[slot] = slot % promptCount;
        }

        ClosedLoopResult execute(long timeoutNanos) {
            // one connection per slot, opened before the clock starts (the client decides whether it preconnects)
            long[] preconnect = finished.peek() == STOP ? new long[0] : client.preconnect(concurrency);
            long startEpochMillis = System.currentTimeMillis();
            startNanos = System.nanoTime();
            if (warmup instanceof Warmup.None) measureStartNanos = startNanos;
            boolean clean = false;
            try {
                if (finished.peek() == STOP) {
                    stopped = true; // stopped before it started: send nothing
                } else {
                    for (int slot = 0; slot < concurrency && tryLaunch(slot); slot++) {
                        // launched
                    }
                    runUntil(startNanos + timeoutNanos);
                }
                cancelAndCollectInFlight();
                clean = true;
            } finally {
                if (!clean) cancelInFlight(); // a listener or the token counter threw: leave nothing running
            }
            long endNanos = System.nanoTime();
            long endEpochMillis = System.currentTimeMillis();
            long measureStart = measureStartNanos < 0 ? endNanos : measureStartNanos;
            long measureStartOffset = measureStart - startNanos;
            return new ClosedLoopResult(records, startEpochMillis + measureStartOffset / 1_000_000L, endEpochMillis,
                    endNanos - measureStart, sent, timedOut, stopped, warmupRecords, timeline, measureStartOffset,
                    settings).withPreconnect(preconnect);
        }

        private boolean inWarmup(long now) {
            if (warmup instanceof Warmup.ForRequests r) return launches < r.count();
            if (warmup instanceof Warmup.ForDuration d) return now - startNanos < d.nanos();
            return false;
        }

        /**
         * Sends the slot's next request, unless no more are wanted. llmperf #82: never more measured requests than
         * records to collect.
         */
        private boolean tryLaunch(int slot) {
            long now = System.nanoTime();
            boolean isWarmup = measureStartNanos < 0 && inWarmup(now);
            if (!isWarmup && measuredCompleted + measuredInFlight >= maxCompleted) return false;
            if (!isWarmup && measureStartNanos < 0) measureStartNanos = now;
            int launch = launches++;
            RequestSpec spec = specs.get(sendOrder ? launch % promptCount : nextIndex[slot]);
            sendNanos[slot] = now;
            launchNumber[slot] = launch;
            warmupSlot[slot] = isWarmup;
            RequestHandle handle = client.send(spec);
            handles[slot] = handle;
            inFlightSpecs[slot] = spec;
            inFlight++;
            if (!isWarmup) {
                measuredInFlight++;
                sent++;
            }
            handle.completion().whenComplete((record, error) -> finished.add(new Finished(slot, launch, record,
                    error)));
            return true;
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
                ScheduledRecord record = retire(f);
                nextIndex[f.slot()] = (nextIndex[f.slot()] + concurrency) % promptCount;
                tryLaunch(f.slot()); // re-send before the bookkeeping below, like a real user
                keep(record);
            }
        }

        private void cancelAndCollectInFlight() {
            if (inFlight == 0) return;
            cancelInFlight();
            boolean interrupted = CancelGrace.collect(finished, () -> inFlight > 0, f -> {
                if (f != STOP) keep(retire(f));
            });
            // safety net: a client that never completes a cancelled request still leaves a record
            for (int slot = 0; slot < concurrency; slot++) {
                if (handles[slot] != null) {
                    keep(retire(new Finished(slot, launchNumber[slot], unanswered(slot), null)));
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

        private ScheduledRecord retire(Finished f) {
            int slot = f.slot();
            RequestRecord record = f.record();
            if (record == null) {
                record = failed(slot, new Failure(FailureKind.CLIENT_ERROR, -1,
                        "the client completed the request without a record: " + f.error()));
            }
            long sendOffset = sendNanos[slot] - startNanos;
            ScheduledRecord scheduled = new ScheduledRecord(record, f.launch(), sendOffset, sendOffset,
                    warmupSlot[slot]);
            handles[slot] = null;
            inFlightSpecs[slot] = null;
            inFlight--;
            if (!warmupSlot[slot]) {
                measuredInFlight--;
                measuredCompleted++;
            }
            return scheduled;
        }

        private void keep(ScheduledRecord scheduled) {
            RequestRecord record = scheduled.record();
            ScheduledRecord counted = scheduled.withRecord(ClientTokenCount.count(record, tokenCounter));
            timeline.add(counted);
            (counted.warmup() ? warmupRecords : records).add(counted.record());
            listener.onScheduledRecord(counted);
        }

        private RequestRecord unanswered(int slot) {
            return failed(slot, new Failure(FailureKind.CANCELLED, -1,
                    "cancelled; the client gave no record within " + CancelGrace.GRACE.toSeconds() + " s"));
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
