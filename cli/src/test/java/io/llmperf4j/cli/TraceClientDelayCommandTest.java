package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.engine.client.impl.ConnectionPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The QA's Azure trace replay without the client warm-up, through the real command: gaps of 300 and 700 ms, and a
 * request that waited for an idle connection's event loop after its on-time start stamp. The wait is made by
 * {@link ConnectionPool#HAND_OFF_DELAY_PROPERTY} (150 ms before the event loop takes a pooled connection's request),
 * so it does not rely on a cold or loaded machine. The open loop's send lag ({@code _open_loop.json}, the console's
 * {@code send lag} line) counts to when each request left the client, so it holds the 150 ms; before, it counted to
 * the start stamp and said a few ms.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TraceClientDelayCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long DELAY_MILLIS = 150;

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(1))
            .interTokenDelay(Duration.ofMillis(1)));

    @Test
    void aRequestHeldInTheClientAfterItsStartStampCountsInTheSendLag(@TempDir Path tmp) throws Exception {
        Path trace = Files.writeString(tmp.resolve("az.csv"), """
                TIMESTAMP,ContextTokens,GeneratedTokens
                2023-11-16 18:17:03.9799600,30,5
                2023-11-16 18:17:04.2799600,50,5
                2023-11-16 18:17:04.9799600,20,5
                2023-11-16 18:17:05.3799600,20,5
                """);
        Path out = tmp.resolve("out");
        String before = System.getProperty(ConnectionPool.HAND_OFF_DELAY_PROPERTY);
        System.setProperty(ConnectionPool.HAND_OFF_DELAY_PROPERTY, Long.toString(DELAY_MILLIS));
        CliRun run;
        try {
            run = CliRun.of(server.env(), "token-benchmark", "--model", "m", "--trace", "azure:" + trace,
                    "--no-client-warmup", "--no-server-metrics", "--results-dir", out.toString());
        } finally {
            if (before == null) System.clearProperty(ConnectionPool.HAND_OFF_DELAY_PROPERTY);
            else System.setProperty(ConnectionPool.HAND_OFF_DELAY_PROPERTY, before);
        }
        assertEquals(0, run.exitCode(), run::toString);
        JsonNode open = JSON.readTree(RunFolder.file(out, "_open_loop.json").toFile());
        JsonNode lag = open.get("send_lag_ms");
        assertEquals(4, lag.get("count").asInt(), open::toString);
        // the requests after the first reuse its idle connection: each waited the 150 ms after its start stamp
        assertTrue(lag.get("max").asDouble() >= DELAY_MILLIS, lag::toString);
        assertTrue(lag.get("p50").asDouble() >= DELAY_MILLIS, lag::toString);
        // TTFT from the intended send counts from the start stamp plus TTFT, which holds the delay once
        JsonNode fromIntended = open.get("ttft_from_intended_ms");
        assertTrue(fromIntended.get("max").asDouble() < lag.get("max").asDouble() + open.get("ttft_from_actual_ms")
                .get("max").asDouble(), "the delay is not counted twice: " + open);
    }
}
