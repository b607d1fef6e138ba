package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.IExecutorService;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.RequestRecord;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A worker's share streaming each measured record to the coordinator as it ends, so a worker that dies later has
 * lost only the requests it had not finished (the outcome carries every record again). The records are encoded and
 * sent from a thread of their own: on the runner's thread that work came after the share's last record and before
 * the runner stamped its end, which stretched the worker's measured window (and so the cluster's) well past the
 * last request, by 10-90 ms on a busy 2-core machine against about 1 ms for a single machine's run.
 */
final class RecordStream implements RecordListener, AutoCloseable {
    private final IExecutorService cluster;
    private final Member coordinator;
    private final WorkerJob job;
    private final ExecutorService sender = Executors.newSingleThreadExecutor(task -> {
        Thread t = new Thread(task, "llmperf4j-record-stream");
        t.setDaemon(true);
        return t;
    });

    RecordStream(IExecutorService cluster, Member coordinator, WorkerJob job) {
        this.cluster = cluster;
        this.coordinator = coordinator;
        this.job = job;
    }

    @Override
    public void onRecord(RequestRecord record) {
    }

    @Override
    public void onScheduledRecord(ScheduledRecord record) {
        if (record.warmup()) return; // warmup records come with the outcome, never lost
        sender.execute(() -> {
            try {
                cluster.executeOnMember(new DeliverRecord(job.jobId(), job.workerId(), LoadWorker.tagged(record, job)),
                        coordinator);
            } catch (RuntimeException e) {
                // the outcome carries every record again; streaming only guards against this worker dying
            }
        });
    }

    /** Sends what is queued, then ends the thread; does not wait (the outcome carries the records anyway). */
    @Override
    public void close() {
        sender.shutdown();
    }
}
