package io.llmperf4j.engine.client;

import io.llmperf4j.engine.testserver.FaultServer;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stream without its end event ends at its body's end (METRICS.md §1), also when that end is the close of a body
 * with no length and no chunking, which the HTTP decoder hands over only at the close. QA (s44): such a body's E2E was
 * its last read's time, 0.5 s before the server closed, while the same stream chunked ended at its terminator. The
 * real client against {@link FaultServer} on 127.0.0.1, whose "end" stamp (the same clock) is taken just before the
 * body's end: the record may not end before it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CloseEndsTheBodySocketTest {

    private FaultServer server;
    private NettyLlmClient client;

    @BeforeEach
    void start() throws IOException {
        server = FaultServer.start();
        client = new NettyLlmClient(ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "test-model")
                .maxConnections(1).idleTimeout(Duration.ofSeconds(5)).build());
    }

    @AfterEach
    void stop() throws IOException {
        client.close();
        server.close();
    }

    /** The record, and that it ended no earlier than the server's body end. */
    private RequestRecord sendAndAssertEndsAtTheBodysEnd(String scenario) {
        RequestHandle handle = client.send(new RequestSpec(0, scenario, 10, 20));
        RequestRecord r = handle.completion().join();
        long endNanos = handle.startNanos() + r.e2eNanos();
        long bodyEnd = server.stamp("end");
        assertTrue(endNanos >= bodyEnd, () -> "E2E " + r.e2eNanos() + " ns ends " + (bodyEnd - endNanos)
                + " ns before the server ended the body (" + scenario + "): at the last data's read, not the end");
        assertTrue(r.e2eNanos() >= TimeUnit.MILLISECONDS.toNanos(500), "the server waits 0.5 s before the end");
        assertTrue(r.lastContentNanos() < r.e2eNanos(), r::toString);
        return r;
    }

    @ParameterizedTest
    @ValueSource(strings = {"until-close-finish-usage-late", "chunked-finish-usage-late"})
    void aStreamWithoutDoneEndsAtItsBodysEndWhateverTheFraming(String scenario) {
        RequestRecord r = sendAndAssertEndsAtTheBodysEnd(scenario);
        assertNull(r.failure(), () -> String.valueOf(r.failure()));
        assertTrue(r.tags().endMarkerMissing());
        assertEquals("Hello", r.generatedText());
        assertEquals("stop", r.finishReason());
        assertEquals(1, r.usageCompletionTokens());
    }

    @Test
    void aCloseWithoutAFinishEndsTheFailedRecordAtTheClose() {
        RequestRecord r = sendAndAssertEndsAtTheBodysEnd("until-close-no-end-late");
        assertEquals(FailureKind.CONNECTION_CLOSED, r.failure().kind());
        assertEquals("Hello", r.generatedText());
    }
}
