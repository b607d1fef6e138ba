package io.llmperf4j.engine.client;

import io.llmperf4j.engine.testserver.FaultServer;
import io.llmperf4j.engine.testserver.FullAcceptQueue;
import io.llmperf4j.engine.testserver.TimedSseServer;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link ClientConfig#requestTimeout()}: a limit on the whole request, wherever it is, keeping what arrived. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RequestTimeoutTest {

    private static ClientConfig.Builder config(String baseUrl) {
        return ClientConfig.builder(EndpointUrls.chatCompletions(baseUrl), "m").ioThreads(1).workerThreads(2);
    }

    @Test
    void aStreamThatIsNeverIdleButTooLongIsCutKeepingItsData() throws Exception {
        // a token every 20 ms, 100,000 of them: the idle timeout never fires, the request timeout does
        try (TimedSseServer server = TimedSseServer.start(Duration.ZERO, Duration.ofMillis(20));
             NettyLlmClient client = new NettyLlmClient(config(server.baseUrl())
                     .requestTimeout(Duration.ofMillis(1500)).build())) {
            RequestRecord r = client.send(new RequestSpec(0, "p", 10, 100_000)).completion().join();
            assertEquals(FailureKind.REQUEST_TIMEOUT, r.failure().kind());
            assertEquals(-1, r.failure().code());
            String message = r.failure().message();
            assertTrue(message.matches("request timeout of 1500 ms exceeded while streaming, after \\d+ events"
                    + " \\(127\\.0\\.0\\.1:" + server.port() + "\\)"), message);
            assertTrue(r.e2eNanos() >= TimeUnit.MILLISECONDS.toNanos(1500), "never early: " + r.e2eNanos());
            int tokens = r.contentEventNanos().length;
            assertTrue(tokens >= 1, "the first token comes at once, so some data was kept");
            assertEquals("tok ".repeat(tokens), r.generatedText());
            assertTrue(r.ttftNanos() > 0);
        }
    }

    @Test
    void requestsStillWaitingForAConnectionTimeOutThere() throws Exception {
        // the only slot is taken by a connect that never completes (connect timeout far away), so both requests time
        // out before they have a connection: the one connecting and the one queued behind it
        try (FullAcceptQueue full = new FullAcceptQueue()) {
            assumeTrue(full.stallsConnects(), "this kernel does not stall connects to a full accept queue");
            try (NettyLlmClient client = new NettyLlmClient(config("http://127.0.0.1:" + full.port()
                    + "/v1").maxConnections(1).connectTimeout(Duration.ofSeconds(20))
                    .requestTimeout(Duration.ofMillis(300)).build())) {
                RequestHandle connecting = client.send(new RequestSpec(0, "ok", 10, 20));
                RequestHandle queued = client.send(new RequestSpec(1, "ok", 10, 20));
                for (RequestHandle h : List.of(connecting, queued)) {
                    RequestRecord r = h.completion().join();
                    assertEquals(FailureKind.REQUEST_TIMEOUT, r.failure().kind());
                    assertEquals("request timeout of 300 ms exceeded while waiting for a connection to 127.0.0.1:"
                            + full.port(), r.failure().message());
                    assertTrue(r.e2eNanos() >= TimeUnit.MILLISECONDS.toNanos(300), "never early: " + r.e2eNanos());
                    assertEquals(0, r.dataEventCount());
                }
            }
        }
    }

    @Test
    void aResponseThatNeverComesTimesOutWhereItIs() throws Exception {
        try (FaultServer server = FaultServer.start();
             NettyLlmClient client = new NettyLlmClient(config(server.baseUrl())
                     .requestTimeout(Duration.ofMillis(300)).build())) {
            RequestRecord r = client.send(new RequestSpec(0, "hang", 10, 20)).completion().join();
            assertEquals(FailureKind.REQUEST_TIMEOUT, r.failure().kind());
            // streaming once the response head is in; waiting only if it were slower than the limit
            assertTrue(r.failure().message().matches("request timeout of 300 ms exceeded while (streaming, after 0 "
                    + "events|waiting for the response) \\(127\\.0\\.0\\.1:" + server.port() + "\\)"),
                    r.failure().message());
            assertEquals(List.of("hang"), server.received().stream().map(FaultServer.Received::prompt).toList());
        }
    }

    @Test
    void requestsWithinTheTimeoutAreUntouchedAndKeepTheirConnection() throws Exception {
        try (FaultServer server = FaultServer.start();
             NettyLlmClient client = new NettyLlmClient(config(server.baseUrl())
                     .requestTimeout(Duration.ofSeconds(20)).build())) {
            for (int i = 0; i < 5; i++) {
                RequestRecord r = client.send(new RequestSpec(i, "ok", 10, 20)).completion().join();
                assertNull(r.failure(), () -> String.valueOf(r.failure()));
            }
            assertEquals(1, server.acceptedConnections());
        }
    }
}
