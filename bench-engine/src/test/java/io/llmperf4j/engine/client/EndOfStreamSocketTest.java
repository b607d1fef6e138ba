package io.llmperf4j.engine.client;

import io.llmperf4j.engine.testserver.FaultServer;
import io.llmperf4j.engine.testserver.Streams;
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
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stream ends at its end event ({@code data: [DONE]}), not at the end of the HTTP body; a compressed body is decoded
 * or its coding named; a redirect is named with its target, never followed. The real client against
 * {@link FaultServer} on 127.0.0.1, which writes these bytes and stamps its writes with the same clock: the record's
 * end is checked against the server's own write times.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EndOfStreamSocketTest {

    private FaultServer server;
    private NettyLlmClient client;

    @BeforeEach
    void start() throws IOException {
        server = FaultServer.start();
        // an idle timeout short enough that waiting for a body that never ends fails the test, not its time limit
        client = new NettyLlmClient(ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "test-model")
                .maxConnections(1).idleTimeout(Duration.ofSeconds(5)).build());
    }

    @AfterEach
    void stop() throws IOException {
        client.close();
        server.close();
    }

    /** The record and the stamp (the client's clock) of its end. */
    private record Sent(RequestRecord record, long endNanos) {
    }

    private Sent send(String scenario) {
        RequestHandle handle = client.send(new RequestSpec(0, scenario, 10, 20));
        RequestRecord r = handle.completion().join();
        return new Sent(r, handle.startNanos() + r.e2eNanos());
    }

    /** The standard stream's answer, complete. */
    private static void assertWholeAnswer(RequestRecord r) {
        assertNull(r.failure(), () -> String.valueOf(r.failure()));
        assertEquals("Hello world!", r.generatedText());
        assertEquals("stop", r.finishReason());
        assertEquals(3, r.usageCompletionTokens());
        assertEquals(5, r.dataEventCount(), "role, three contents and the finish; not the usage chunk nor [DONE]");
        assertTrue(r.lastContentNanos() <= r.e2eNanos(), r::toString);
    }

    /** The record ends when [DONE] arrived: after the server wrote it, before it wrote the body's end. */
    private void assertEndsAtDone(Sent sent) {
        long done = server.stamp("done");
        long end = server.stamp("end");
        assertTrue(sent.endNanos() >= done, () -> "the end " + sent.endNanos() + " before [DONE] was written " + done);
        assertTrue(sent.endNanos() < end, () -> "the end " + sent.endNanos() + " is the body's end (written at " + end
                + ", [DONE] at " + done + "), not [DONE]'s arrival: E2E and TPOT would include the gap (the last "
                + "content event was read at " + (sent.endNanos() - sent.record().e2eNanos()
                + sent.record().lastContentNanos()) + ")");
    }

    /**
     * The server ends the body only once the record has ended (at [DONE]), so the end comes after [DONE]'s arrival
     * however late a starved I/O thread reads it; a fixed 0.5 s pause was outrun. A client that waited for the body's
     * end would end at its idle timeout instead, a failure.
     */
    @Test
    void aTerminatorLateAfterDoneIsNotInTheRecord() {
        Sent sent = send("done-then-late-end");
        server.signalLateEnd();
        assertWholeAnswer(sent.record());
        assertEndsAtDone(sent);
    }

    @Test
    void aCloseLateAfterDoneIsNotInTheRecord() {
        Sent sent = send("done-then-late-close");
        server.signalLateEnd();
        assertWholeAnswer(sent.record());
        assertEndsAtDone(sent);
    }

    @Test
    void anthropicsEndEventEndsItsStream() {
        NettyLlmClient anthropic = new NettyLlmClient(ClientConfig.builder(
                EndpointUrls.messages(server.baseUrl()), "test-model").maxConnections(1).build(),
                new AnthropicMessagesApi());
        try (anthropic) {
            RequestHandle handle = anthropic.send(new RequestSpec(0, "anthropic-stop-then-late-end", 10, 20));
            RequestRecord r = handle.completion().join();
            server.signalLateEnd();
            assertNull(r.failure(), () -> String.valueOf(r.failure()));
            assertEquals("Hello world!", r.generatedText());
            assertEquals("end_turn", r.finishReason());
            assertEquals(3, r.usageCompletionTokens());
            assertEndsAtDone(new Sent(r, handle.startNanos() + r.e2eNanos()));
        }
    }

    /**
     * The server resets only once the record has ended (at [DONE], the body's end not awaited), so the reset comes
     * after [DONE]'s arrival however late a starved I/O thread reads it; a fixed pause before the reset was outrun.
     * A client that waited for the body's end would end at its idle timeout instead, a failure.
     */
    @Test
    void aResetAfterDoneIsASuccessEndingAtDone() {
        Sent sent = send("done-then-reset");
        server.signalReset();
        assertWholeAnswer(sent.record());
        assertEndsAtDone(sent);
    }

    @Test
    void aBodyThatNeverEndsAfterDoneCompletesAtDoneAndItsConnectionIsReplaced() {
        Sent sent = send("done-never-ends");
        assertWholeAnswer(sent.record());
        assertTrue(sent.endNanos() >= server.stamp("done"));

        RequestRecord next = send("ok").record();
        assertWholeAnswer(next);
        assertEquals(2, server.acceptedConnections(), "the unfinished body's connection is not reused");
        assertEquals(2, client.connectionsOpened());
        assertEquals(List.of("done-never-ends", "ok"),
                server.received().stream().map(FaultServer.Received::prompt).toList());
    }

    @Test
    void eventsAfterDoneAreNotPartOfTheAnswerAndTheConnectionIsReused() {
        RequestRecord r = send("content-after-done").record();
        assertWholeAnswer(r);
        assertEquals("stop", r.finishReason(), "the finish reason after [DONE] is not read either");
        assertWholeAnswer(send("ok").record());
        assertEquals(1, server.acceptedConnections(), "the body ended properly: its connection is reused");
    }

    @Test
    void aStreamEndingWithDoneInTheSameReadAsItsBodyKeepsItsConnection() {
        for (int i = 0; i < 3; i++) assertWholeAnswer(send("ok-one-write").record());
        assertEquals(1, server.acceptedConnections());
    }

    @Test
    void aGzipStreamIsDecodedAsItArrivesAndNoCompressionIsAskedFor() throws InterruptedException {
        RequestHandle handle = client.send(new RequestSpec(0, "gzip", 10, 20));
        // the server writes each event once the client has decoded the one before
        for (int decoded = 1; decoded < Streams.standard().size(); decoded++) {
            while (handle.eventsDecoded() < decoded && !handle.completion().isDone()) Thread.sleep(1);
            server.signalEventDecoded();
        }
        RequestRecord r = handle.completion().join();
        assertWholeAnswer(r);
        // each content event is stamped by the arrival of its own compressed bytes: after the server wrote them,
        // before it wrote the next event's
        long[] events = r.contentEventNanos();
        assertEquals(3, events.length);
        for (int k = 0; k < events.length; k++) {
            long at = handle.startNanos() + events[k];
            long written = server.stamp("event-" + (k + 1));
            long next = server.stamp("event-" + (k + 2));
            int event = k;
            assertTrue(at >= written && at < next, () -> "content event " + event + " at " + at + ", written at "
                    + written + ", the next one at " + next);
        }
        assertEquals("identity", server.received().get(0).headers().get("accept-encoding"));
        assertWholeAnswer(send("ok").record());
        assertEquals(1, server.acceptedConnections(), "a decoded body ends like any other: its connection is reused");
    }

    @Test
    void aGzipErrorBodyIsDecodedForItsMessageAndTheNextAnswerOnTheConnectionIsNot() {
        RequestRecord r = send("status-503-gzip").record();
        assertEquals(FailureKind.HTTP_STATUS, r.failure().kind());
        assertEquals(503, r.failure().code());
        assertEquals("{\"error\":{\"message\":\"upstream overloaded\",\"code\":503}}", r.failure().message());
        assertWholeAnswer(send("ok").record()); // through the decompressor the first answer left on the connection
        assertEquals(1, server.acceptedConnections());
    }

    @Test
    void aCodingTheClientCannotDecodeIsNamed() {
        RequestRecord r = send("brotli").record();
        assertNotNull(r.failure());
        assertEquals(FailureKind.CLIENT_ERROR, r.failure().kind());
        assertEquals("the response from 127.0.0.1:" + server.port() + " is compressed (Content-Encoding: br), which "
                + "the client does not decode (it decodes gzip and deflate): turn compression off for this endpoint "
                + "at the server or gateway", r.failure().message());
        assertEquals(0, r.dataEventCount());
    }

    @ParameterizedTest
    @ValueSource(strings = {"gzip", "deflate"})
    void aBodyThatIsNotInTheCodingItClaimsIsTheServersFaultAndNamesTheHeader(String coding) {
        RequestRecord r = send(coding + "-not-" + coding).record();
        assertEquals(FailureKind.MALFORMED_EVENT, r.failure().kind(), r.failure()::toString);
        assertEquals(-1, r.failure().code());
        String said = "the response from 127.0.0.1:" + server.port() + " said Content-Encoding: " + coding
                + " but its body is not " + coding + " data (";
        assertTrue(r.failure().message().startsWith(said), r.failure().message());
        assertTrue(r.failure().message().endsWith(") while streaming, after 0 events"), r.failure().message());
    }

    @Test
    void aGzipStreamThatTurnsToGarbageKeepsItsEventsSoFar() {
        RequestRecord r = send("gzip-then-garbage").record();
        assertEquals(FailureKind.MALFORMED_EVENT, r.failure().kind(), r.failure()::toString);
        assertTrue(r.failure().message().startsWith("the response from 127.0.0.1:" + server.port()
                + " said Content-Encoding: gzip but its body is not gzip data ("), r.failure().message());
        assertTrue(r.failure().message().endsWith(") while streaming, after 2 events"), r.failure().message());
        assertEquals("Hello", r.generatedText());
        assertEquals(2, r.dataEventCount());
    }

    @Test
    void anErrorBodyThatIsNotInItsCodingKeepsItsStatus() {
        RequestRecord r = send("status-500-not-gzip").record();
        assertEquals(FailureKind.HTTP_STATUS, r.failure().kind(), r.failure()::toString);
        assertEquals(500, r.failure().code());
        assertTrue(r.failure().message().startsWith("the HTTP 500 response from 127.0.0.1:" + server.port()
                + " said Content-Encoding: gzip but its body is not gzip data ("), r.failure().message());
    }

    @Test
    void aRedirectNamesItsTargetWithoutItsKeyAndIsNotFollowed() {
        RequestRecord r = send("redirect-308").record();
        assertEquals(FailureKind.HTTP_STATUS, r.failure().kind());
        assertEquals(308, r.failure().code());
        assertEquals("HTTP 308 redirect to https://127.0.0.1:" + server.port() + "/v1/chat/completions?api-version="
                + "2024-06-01&api-key=[redacted] (the client does not follow redirects: point OPENAI_API_BASE at "
                        + "https://127.0.0.1:" + server.port() + "/v1)",
                r.failure().message());
        assertEquals(1, server.requestsReceived(), "not followed");
    }

    @Test
    void aRelativeRedirectIsNamedAsTheAbsoluteUrl() {
        RequestRecord r = send("redirect-307-relative").record();
        assertEquals(FailureKind.HTTP_STATUS, r.failure().kind());
        assertEquals(307, r.failure().code());
        assertEquals("HTTP 307 redirect to http://127.0.0.1:" + server.port() + "/gateway/v1/chat/completions (the "
                + "client does not follow redirects: point OPENAI_API_BASE at http://127.0.0.1:" + server.port()
                + "/gateway/v1)", r.failure().message());
        assertEquals(1, server.requestsReceived(), "not followed");
    }
}
