package io.llmperf4j.engine.harness;

import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Synthetic results for harness tests. */
final class Fixtures {

    static final ClosedLoopSettings EIGHT = new ClosedLoopSettings(8, Duration.ofMinutes(1));

    private Fixtures() {
    }

    static ClosedLoopResult load(List<ScheduledRecord> timeline, long durationNanos, boolean stopped) {
        List<RequestRecord> records = timeline.stream().map(ScheduledRecord::record).toList();
        return new ClosedLoopResult(records, 0, 0, durationNanos, records.size(), !stopped, stopped, List.of(),
                timeline, 0, EIGHT);
    }

    static RequestRecord record(long ttftNanos, long lastNanos, long e2eNanos, long[] events, Integer usage,
                                int clientTokens, Failure failure) {
        return new RequestRecord(0, "id", null, 0, ttftNanos, lastNanos, e2eNanos, events.length, events, "x", 10, 50,
                clientTokens, usage == null ? null : 10, usage, "stop", failure);
    }

    static Failure failure(FailureKind kind) {
        return new Failure(kind, -1, kind.name());
    }

    static IterationResult iteration(int fork, IterationType type, int index, double tokPerSecond, int completed) {
        return new IterationResult(fork, type, index, 0, 1_000_000_000L, tokPerSecond, completed, 0,
                new double[] {100 + index, 200 + index}, new double[] {20 + fork}, new double[] {1000});
    }

    /** Two forks of three measurement iterations (1 s each), one warmup each. */
    static HarnessResult harnessResult() {
        double[][] scores = {{812.5, 790.25, 805.0}, {799.75, 820.0, 801.5}};
        List<ForkResult> forks = new java.util.ArrayList<>();
        for (int f = 0; f < 2; f++) {
            List<IterationResult> measurement = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) {
                measurement.add(iteration(f + 1, IterationType.MEASUREMENT, i + 1, scores[f][i], 4));
            }
            forks.add(new ForkResult(f + 1, List.of(iteration(f + 1, IterationType.WARMUP, 1, 500, 2)), measurement,
                    load(List.of(), 4_000_000_000L, false), false));
        }
        HarnessSettings settings = HarnessSettings.of(1, Duration.ofSeconds(1), 3, Duration.ofSeconds(1), 2);
        return new HarnessResult("llm.chat", Map.of("concurrency", "8"), settings, EIGHT, forks, false);
    }
}
