package io.llmperf4j.engine.load;

import io.llmperf4j.model.RequestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.llmperf4j.engine.load.ClosedLoopRunnerTest.specs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ClosedLoopWarmupTest {

    private static final Duration LONG = Duration.ofMinutes(1);

    @Test
    void warmupRequestsAreSentFirstAndExcludedFromRecords() {
        FakeClient client = FakeClient.succeeding();
        List<RequestRecord> measured = new ArrayList<>();
        List<RequestRecord> warm = new ArrayList<>();
        ClosedLoopResult result = new ClosedLoopRunner(client, t -> 1).run(specs(5),
                new ClosedLoopSettings(2, LONG).withMaxCompleted(5).withWarmup(Warmup.requests(3)),
                new RecordListener() {
                    @Override
                    public void onRecord(RequestRecord record) {
                        measured.add(record);
                    }

                    @Override
                    public void onWarmupRecord(RequestRecord record) {
                        warm.add(record);
                    }
                });
        assertEquals(8, client.sent.size());
        assertEquals(5, result.records().size());
        assertEquals(5, result.requestsSent());
        assertEquals(3, result.warmupRecords().size());
        assertEquals(measured, result.records());
        assertEquals(warm, result.warmupRecords());
        assertEquals(8, result.timeline().size());
        assertEquals(3, result.timeline().stream().filter(ScheduledRecord::warmup).count());
        // warmup launches are the first three; intended equals actual in a closed loop
        for (ScheduledRecord r : result.timeline()) {
            assertEquals(r.arrivalIndex() < 3, r.warmup());
            assertEquals(0, r.sendLagNanos());
        }
        assertTrue(result.measureStartOffsetNanos() >= 0);
        assertEquals(5, result.toBenchmarkRun(settings()).records().size());
    }

    @Test
    void timedWarmupCoversEverySendBeforeItsEnd() {
        try (DelayedClient client = new DelayedClient(5)) {
            ClosedLoopResult result = new ClosedLoopRunner(client, t -> 1).run(specs(3),
                    new ClosedLoopSettings(2, LONG).withMaxCompleted(4).withWarmup(Warmup.duration(
                            Duration.ofMillis(100))));
            assertEquals(4, result.records().size());
            assertTrue(result.warmupRecords().size() >= 1, "the first send is in the warmup");
            assertTrue(result.measureStartOffsetNanos() >= TimeUnit.MILLISECONDS.toNanos(100));
            for (ScheduledRecord r : result.timeline()) {
                assertTrue(r.warmup() ? r.actualSendOffsetNanos() <= result.measureStartOffsetNanos()
                        : r.actualSendOffsetNanos() >= result.measureStartOffsetNanos(), r.toString());
            }
            assertTrue(result.records().stream().allMatch(RequestRecord::succeeded));
        }
    }

    @Test
    void withoutWarmupEverythingIsMeasuredFromTheFirstSend() {
        ClosedLoopResult result = new ClosedLoopRunner(FakeClient.succeeding(), t -> 1).run(specs(4),
                new ClosedLoopSettings(2, LONG));
        // the window opens at the first send's stamp (ClosedLoopRunnerSocketTest checks it over a real socket)
        assertEquals(result.timeline().stream().mapToLong(ScheduledRecord::actualSendOffsetNanos).min().orElseThrow(),
                result.measureStartOffsetNanos());
        assertEquals(4, result.timeline().size());
        assertTrue(result.warmupRecords().isEmpty());
        assertEquals(result.records(), result.timeline().stream().map(ScheduledRecord::record).toList());
    }

    private static io.llmperf4j.model.BenchmarkSettings settings() {
        return io.llmperf4j.model.BenchmarkSettings.builder()
                .model("m")
                .meanInputTokens(1)
                .stddevInputTokens(0)
                .meanOutputTokens(1)
                .stddevOutputTokens(0)
                .numConcurrentRequests(2)
                .timeoutSeconds(60)
                .maxNumCompletedRequests(5)
                .llmApi("openai")
                .endpoint("http://x")
                .tokenizer("t")
                .promptMode("llmperf")
                .seed(0)
                .build();
    }
}
