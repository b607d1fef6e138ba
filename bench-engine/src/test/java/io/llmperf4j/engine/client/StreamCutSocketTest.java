package io.llmperf4j.engine.client;

import io.llmperf4j.engine.testserver.FaultServer;
import io.llmperf4j.model.Failure;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Who ended a stream without its end event: the connection (a server killed or restarted mid-stream) or the API (a
 * complete response without {@code [DONE]}). What the client can tell apart: a chunked body before its last chunk and
 * a body shorter than its length are cut; a body that ends with the connection (HTTP/1.0 style) is cut when it ends
 * inside an event, and between events without a finish reason either reading holds, which the message says. The real
 * client against {@link FaultServer} on 127.0.0.1.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StreamCutSocketTest {

    private FaultServer server;
    private NettyLlmClient client;
    private String host;

    @BeforeEach
    void start() throws IOException {
        server = FaultServer.start();
        host = "127.0.0.1:" + server.port();
        client = new NettyLlmClient(ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "test-model")
                .maxConnections(1).idleTimeout(Duration.ofSeconds(5)).build());
    }

    @AfterEach
    void stop() throws IOException {
        client.close();
        server.close();
    }

    private RequestRecord send(String scenario) {
        return client.send(new RequestSpec(0, scenario, 10, 20)).completion().join();
    }

    /** The role and "Hello" came whole before the end: kept, whatever the end was. */
    private static void assertDataSoFar(RequestRecord r) {
        assertEquals("Hello", r.generatedText());
        assertEquals(2, r.dataEventCount(), "the role and Hello; a cut-off rest is no event");
        assertNull(r.finishReason());
        assertFalse(r.tags().endMarkerMissing());
    }

    @Test
    void aCloseBetweenEventsWithoutAFinishIsTheConnectionsNotTheApisAndSaysBothReadings() {
        RequestRecord r = send("until-close-no-end");
        assertEquals(new Failure(FailureKind.CONNECTION_CLOSED, -1, "the server (" + host + ") closed the connection "
                + "after 2 events without data: [DONE] or a finish reason: it stopped (crash, restart?) or its API "
                + "does not end streams"), r.failure());
        assertDataSoFar(r);
    }

    @ParameterizedTest
    @ValueSource(strings = {"until-close-cut-event", "until-close-cut-line"})
    void aCloseInsideAnEventIsACutNotAMalformedEvent(String scenario) {
        RequestRecord r = send(scenario);
        assertEquals(new Failure(FailureKind.CONNECTION_CLOSED, -1, "connection closed by " + host
                + " mid-stream after 2 events, part-way through the next one"), r.failure());
        assertDataSoFar(r);
    }

    @Test
    void aChunkedBodyCutInsideAnEventSaysSo() {
        RequestRecord r = send("chunked-cut-event");
        assertEquals(new Failure(FailureKind.CONNECTION_CLOSED, -1, "connection closed by " + host
                + " mid-stream after 2 events, part-way through the next one"), r.failure());
        assertDataSoFar(r);
    }

    /**
     * QA (apis): a body its framing ended (the last chunk, the whole length) part-way through an event was parsed as if
     * whole, MALFORMED_EVENT "SSE data event #3 is malformed", where the same end by the close is CONNECTION_CLOSED:
     * the server cut the event short either way.
     */
    @ParameterizedTest
    @ValueSource(strings = {"chunked-end-cut-event", "length-end-cut-event"})
    void aBodyItsFramingEndsInsideAnEventIsACutNotAMalformedEvent(String scenario) {
        RequestRecord r = send(scenario);
        assertEquals(new Failure(FailureKind.CONNECTION_CLOSED, -1, "the response body from " + host
                + " ended part-way through an event, after 2 whole events"), r.failure());
        assertDataSoFar(r);
    }

    /** The same after the finish reason: the half event that follows it is still a cut, not a success. */
    @Test
    void aChunkedBodyEndedInsideAnEventAfterTheFinishIsACut() {
        RequestRecord r = send("chunked-end-cut-after-finish");
        assertEquals(new Failure(FailureKind.CONNECTION_CLOSED, -1, "the response body from " + host
                + " ended part-way through an event, after 3 whole events"), r.failure());
        assertEquals("Hello", r.generatedText());
        assertEquals(3, r.dataEventCount(), "the role, Hello and the finish; the half event is no event");
        assertEquals("stop", r.finishReason());
    }

    /** A body shorter than its length is cut, and says by how much (before: only "mid-stream after 2 events"). */
    @Test
    void aBodyShorterThanItsLengthIsCutAndSaysHowShort() {
        RequestRecord r = send("length-cut");
        assertEquals(FailureKind.CONNECTION_CLOSED, r.failure().kind());
        Matcher m = Pattern.compile("the server \\(" + Pattern.quote(host) + "\\) closed the connection after "
                + "(\\d+) of the (\\d+) bytes its Content-Length announced, mid-stream after 2 events")
                .matcher(r.failure().message());
        assertTrue(m.matches(), r.failure().message());
        assertEquals(500, Integer.parseInt(m.group(2)) - Integer.parseInt(m.group(1)), "the scenario's 500 missing");
        assertDataSoFar(r);
    }

    /** A whole (JSON) answer cut short of its length says so, in the same words. */
    @Test
    void aJsonBodyShorterThanItsLengthSaysHowShort() {
        RequestRecord r = send("json-length-cut");
        assertEquals(new Failure(FailureKind.CONNECTION_CLOSED, -1, "the server (" + host + ") closed the connection "
                + "after 812 of the 2,048 bytes its Content-Length announced"), r.failure());
    }

    /**
     * QA: a chunked body cut after its finish reason (before [DONE] and its last chunk) was a failed "mid-stream" cut
     * with finish_reason "stop" in the same record, while the same answer close-delimited was a success: the answer is
     * whole either way.
     */
    @ParameterizedTest
    @ValueSource(strings = {"until-close-finish-no-done", "until-close-no-last-blank-line", "chunked-cut-after-finish"})
    void aCloseAfterTheFinishIsLlmperfsSuccessTagged(String scenario) {
        RequestRecord r = send(scenario);
        assertNull(r.failure(), () -> String.valueOf(r.failure()));
        assertTrue(r.tags().endMarkerMissing());
        assertEquals("Hello", r.generatedText());
        assertEquals("stop", r.finishReason());
        assertEquals(3, r.dataEventCount());
    }

    @Test
    void aCompleteChunkedBodyWithoutDoneOrAFinishIsStillTheApis() {
        RequestRecord r = send("no-done-no-finish");
        assertEquals(new Failure(FailureKind.MISSING_DONE, -1, "the stream ended without data: [DONE] after 2 events "
                + "and without a finish reason: the response may be cut short"), r.failure());
        assertDataSoFar(r);
    }
}
