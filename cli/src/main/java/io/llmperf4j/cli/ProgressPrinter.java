package io.llmperf4j.cli;

import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.model.RequestRecord;

import java.io.PrintStream;
import java.util.Locale;

/** Progress on stderr: at most one line a second, and one when the last request is done. */
final class ProgressPrinter implements RecordListener {
    private static final long PRINT_INTERVAL_NANOS = 1_000_000_000L;

    private final PrintStream err;
    private final int total;
    private final long startNanos = System.nanoTime();
    private long lastPrintNanos = startNanos;
    private int done;
    private int failed;

    ProgressPrinter(PrintStream err, int total) {
        this.err = err;
        this.total = total;
    }

    @Override
    public void onRecord(RequestRecord record) {
        done++;
        if (!record.succeeded()) {
            failed++;
        }
        long now = System.nanoTime();
        if (done == total || now - lastPrintNanos >= PRINT_INTERVAL_NANOS) {
            lastPrintNanos = now;
            double elapsedS = (now - startNanos) / 1e9;
            err.printf(Locale.ROOT, "llmperf4j: %d/%d requests done, %d failed, %.1f s, %.2f req/s%n",
                    done, total, failed, elapsedS, done / Math.max(elapsedS, 1e-9));
        }
    }
}
