package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.IExecutorService;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A worker's share streaming each measured record to the coordinator as it ends, and each request as it is sent,
 * so that of a worker that dies later the coordinator knows which requests it finished, which it had sent without
 * their records reaching it (lost) and which it never sent (the outcome carries every record again). The messages
 * are encoded and sent from a thread of their own, sends gathered into one message while the thread is busy: on the
 * runner's thread that work came after the share's last record and before the runner stamped its end, which
 * stretched the worker's measured window (and so the cluster's) well past the last request, by 10-90 ms on a busy
 * 2-core machine against about 1 ms for a single machine's run.
 */
final class RecordStream implements RecordListener, SendWatchingClient.Watcher, AutoCloseable {
    private final IExecutorService cluster;
    private final Member coordinator;
    private final WorkerJob job;
    private final ExecutorService sender = Executors.newSingleThreadExecutor(task -> {
        Thread t = new Thread(task, "llmperf4j-record-stream");
        t.setDaemon(true);
        return t;
    });
    private final Queue<Send> sends = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean wordQueued = new AtomicBoolean();
    /** Whether the runner said its measured window started: its sends from then on are measured. */
    private volatile boolean measuring;
    /** The shared start instant on this machine's {@link System#nanoTime()}: the origin of the sends' offsets. */
    private volatile long originNanos;

    RecordStream(IExecutorService cluster, Member coordinator, WorkerJob job) {
        this.cluster = cluster;
        this.coordinator = coordinator;
        this.job = job;
    }

    /** The shared start instant on this machine's {@link System#nanoTime()}, before any request is sent. */
    void startsAt(long nanoTime) {
        originNanos = nanoTime;
    }

    @Override
    public void onMeasureStart(long nanoTime) {
        measuring = true;
    }

    /** Whether the runner said its measured window started ({@link #onMeasureStart}). */
    @Override
    public boolean measuring() {
        return measuring;
    }

    /** A measured request went out at {@code sentNanos} ({@link System#nanoTime()}); any thread. */
    @Override
    public void sent(String clientRequestId, RequestSpec spec, long sentNanos) {
        sends.add(new Send(clientRequestId, spec, sentNanos)); // kept short: the sender's thread waits
        queueWord();
    }

    @Override
    public void onRecord(RequestRecord record) {
    }

    @Override
    public void onScheduledRecord(ScheduledRecord record) {
        if (record.warmup()) return; // warmup records come with the outcome; their sends were never told
        sender.execute(() -> {
            try {
                cluster.executeOnMember(new DeliverRecord(job.jobId(), job.workerId(), LoadWorker.tagged(record, job)),
                        coordinator);
            } catch (RuntimeException e) {
                // the outcome carries every record again; streaming only guards against this worker dying
            }
        });
    }

    /** One message for what was sent until the thread gets to it. */
    private void queueWord() {
        if (wordQueued.compareAndSet(false, true)) sender.execute(this::sendWord);
    }

    private void sendWord() {
        wordQueued.set(false); // before taking: anything added after this point queues a word of its own
        List<SentRequests.Sent> sent = new ArrayList<>();
        EpochClock.Anchor now = EpochClock.anchor();
        for (Send s; (s = sends.poll()) != null; ) {
            // the send's wall time, as its record's start would read it: this machine's wall clock, back by its age
            sent.add(new SentRequests.Sent(s.clientRequestId(), s.spec().index(), s.spec().numberInputTokens(),
                    s.spec().maxTokens(), s.nanoTime() - originNanos, now.epochMicrosOf(s.nanoTime())));
        }
        if (sent.isEmpty()) return;
        try {
            cluster.executeOnMember(new DeliverSends(job.jobId(), job.workerId(), new SentRequests(sent)),
                    coordinator);
        } catch (RuntimeException e) {
            // the outcome says what was sent; this word only guards against this worker dying
        }
    }

    /** A request sent, as the sending thread left it. */
    private record Send(String clientRequestId, RequestSpec spec, long nanoTime) {
    }

    /**
     * Sends what is queued and waits at most {@code wait} for it to be handed to the cluster: a worker that leaves
     * sends no outcome, so its last sends and records must go out before it does.
     */
    void drain(Duration wait) {
        sender.shutdown();
        try {
            sender.awaitTermination(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sends what is queued, then ends the thread; does not wait (the outcome carries the records anyway). */
    @Override
    public void close() {
        sender.shutdown();
    }
}
