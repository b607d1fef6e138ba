package io.llmperf4j.run;

import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.LoadResult;
import io.llmperf4j.engine.load.LoadRunner;
import io.llmperf4j.engine.load.PacedWorkload;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session start that waits for its fresh session to be drawn (FreshSessions draws on a thread of its own) is told
 * at the run's end, as FreshRequests tells the sends that waited for a prompt: it went unreported, though the wait
 * delays the session's first turn. Against the simulator on 127.0.0.1, with a draw slower than a session.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FreshSessionsWaitTest {
    private static final LlmApi CHAT = ApiRegistry.get("openai").adapter(true, null);
    /** A fresh session's draw: far longer than a one-token answer of the simulator's. */
    private static final long DRAW_MILLIS = 400;

    /** One session of one turn, {@code s0}, its prompt tagged with {@code batch}. */
    private static PacedWorkload batch(int batch) {
        return PacedWorkload.sessions(List.of(new RequestSpec(0, "batch " + batch, 2, 1,
                new RequestInputs(null, List.of(), List.of(), "s0", 0))), turn -> 0L);
    }

    @Test
    void sessionStartsThatWaitedForADrawAreToldAtTheRunsEnd() throws Exception {
        PacedWorkload own = batch(0);
        List<String> notices = new CopyOnWriteArrayList<>();
        FreshSessions fresh = new FreshSessions(own, k -> {
            sleep(DRAW_MILLIS);
            return batch(k);
        }, 1, notices::add);
        PacedWorkload level = own.withMoreSessions(fresh);
        LoadResult result;
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(1)).build());
             NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(CHAT.endpoint(server.baseUrl()), "m")
                     .maxConnections(1).build(), CHAT)) {
            // one session at a time, four sessions: the workload's own, then three fresh ones
            result = new LoadRunner(client, String::length).run(level,
                    new ClosedLoopSettings(1, OptionalInt.of(4), Duration.ofSeconds(30)), RecordListener.NONE);
        }
        assertEquals(4, result.records().size());
        assertTrue(result.records().stream().allMatch(RequestRecord::succeeded), result.records()::toString);
        assertEquals(1, notices.size(), notices::toString);
        Matcher m = Pattern.compile("llmperf4j: sessions: (\\d+) of 3 fresh sessions started waited for their "
                + "prompts to be drawn \\((\\d+\\.\\d) ms in all\\): drawing fell behind the session starts")
                .matcher(notices.get(0));
        assertTrue(m.matches(), notices::toString);
        // the second and third fresh sessions were drawn after the one before was asked for: they waited at least
        int waited = Integer.parseInt(m.group(1));
        assertTrue(waited >= 2 && waited <= 3, notices::toString);
        assertTrue(Double.parseDouble(m.group(2)) > 0, notices::toString);
        // the counts start again for the next run: a run that asked for none says nothing
        fresh.runEnded();
        assertEquals(1, notices.size(), notices::toString);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
