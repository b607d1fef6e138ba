package io.llmperf4j.engine.client;

import io.llmperf4j.engine.testserver.FullAcceptQueue;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The connect timeout, against a loopback listener whose accept queue is full (see {@link FullAcceptQueue}). */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ConnectTimeoutTest {

    @Test
    void aConnectThatNeverCompletesFailsNamingTheLimitAndTheEndpoint() throws IOException {
        try (FullAcceptQueue full = new FullAcceptQueue()) {
            assumeTrue(full.stallsConnects(), "this kernel does not stall connects to a full accept queue");
            ClientConfig config = ClientConfig.builder(
                            EndpointUrls.chatCompletions("http://127.0.0.1:" + full.port() + "/v1"), "m")
                    .connectTimeout(Duration.ofMillis(300)).ioThreads(1).workerThreads(1).build();
            try (NettyLlmClient client = new NettyLlmClient(config)) {
                RequestRecord r = client.send(new RequestSpec(0, "ok", 1, 1)).completion().join();
                assertEquals(FailureKind.CONNECT_FAILED, r.failure().kind());
                assertEquals(-1, r.failure().code());
                assertEquals("connect timed out after 300 ms to 127.0.0.1:" + full.port(), r.failure().message());
                assertTrue(r.e2eNanos() >= TimeUnit.MILLISECONDS.toNanos(300), "never early: " + r.e2eNanos());
                assertEquals(-1, r.ttftNanos());
                assertEquals(0, client.openConnections(), "the attempt's slot is free again");
            }
        }
    }
}
