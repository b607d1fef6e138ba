package io.llmperf4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.RequestRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The warm-up's open-loop wave (for open loops, rate sweeps and rate searches): the run's own open loop against the
 * responder, every arrival sent on a seeded schedule, answered, counted and handed to the listener.
 */
class ClientWarmupOpenWaveTest {

    @Test
    void sendsItsArrivalsOnTheScheduleAndCountsAndJournalsEachAnswer() throws Exception {
        List<ScheduledRecord> seen = new ArrayList<>();
        RecordListener listener = new RecordListener() {
            @Override
            public void onRecord(RequestRecord record) {
            }

            @Override
            public void onScheduledRecord(ScheduledRecord record) {
                seen.add(record);
            }
        };
        try (WarmupResponder responder = WarmupResponder.start();
             NettyLlmClient client = ClientWarmup.newClient(responder, "warmup")) {
            int sent = ClientWarmup.openWave(client, String::length, 3, listener,
                    System.currentTimeMillis() + 60_000);
            assertEquals(ClientWarmup.OPEN_WAVE_ARRIVALS, sent);
        }
        assertEquals(ClientWarmup.OPEN_WAVE_ARRIVALS, seen.size());
        long[] intended = seen.stream().mapToLong(ScheduledRecord::intendedSendOffsetNanos).sorted().toArray();
        assertEquals(0, intended[0], "the schedule starts at its origin");
        assertTrue(intended[intended.length - 1] > 0, "arrivals spread over time, not a burst");
        for (ScheduledRecord scheduled : seen) {
            RequestRecord record = scheduled.record();
            assertTrue(record.succeeded(), record::toString);
            assertEquals(ClientWarmup.OPEN_WAVE_TOKENS, record.contentEventNanos().length);
            // counted by the given counter (here: characters), as the run counts its answers
            assertEquals(record.generatedText().length(), record.outputTokens());
            assertTrue(scheduled.actualSendOffsetNanos() >= scheduled.intendedSendOffsetNanos(),
                    "sent by the pacer when due, never before");
        }
    }
}
