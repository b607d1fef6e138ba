package io.llmperf4j.engine.client.impl;

import io.llmperf4j.engine.client.OpenAiChatApi;
import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.engine.testserver.Streams;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exchange's state machine driven byte by byte through the connection's real pipeline (arrival clock, HTTP
 * response decoder, connection handler) in an {@link EmbeddedChannel}, the way Netty tests its own codecs: no socket,
 * no threads (records are built inline), every split and every end chosen by the test.
 */
class ExchangeStateMachineTest {

    private static final String HOST = "test.invalid:8000";

    private final Deque<EmbeddedChannel> connections = new ArrayDeque<>();
    private final List<EmbeddedChannel> used = new ArrayList<>();
    private final List<Boolean> releases = new ArrayList<>();
    private boolean reused;

    /** Hands out the queued channels in order, as a pool would, and notes how each came back. */
    private final ConnectionSource source = new ConnectionSource() {
        @Override
        public void acquire(Exchange exchange) {
            EmbeddedChannel ch = connections.poll();
            assertNotNull(ch, "the exchange asked for more connections than the test has");
            used.add(ch);
            exchange.attach(ch, reused);
        }

        @Override
        public void release(Channel ch, boolean reusable) {
            releases.add(reusable);
            if (!reusable) ch.close();
        }
    };

    @AfterEach
    void closeChannels() {
        used.forEach(ch -> ch.finishAndReleaseAll());
        connections.forEach(ch -> ch.finishAndReleaseAll());
    }

    private static EmbeddedChannel connection() {
        ArrivalClock clock = new ArrivalClock();
        return new EmbeddedChannel(clock, new HttpResponseDecoder(), new ConnectionHandler(clock));
    }

    private Exchange start() {
        ExchangeContext context = new ExchangeContext(source, Runnable::run, new EmbeddedChannel().eventLoop(),
                new OpenAiChatApi(true), new Redactor(Secret.none(), Map.of()), TimeUnit.SECONDS.toNanos(60), 0,
                1024 * 1024, HOST, java.net.URI.create("http://" + HOST + "/v1/chat/completions"));
        RequestBytes bytes = new RequestBytes("/v1/chat/completions", new DefaultHttpHeaders().set("Host", HOST),
                UnpooledByteBufAllocator.DEFAULT);
        Exchange exchange = new Exchange(context, new RequestSpec(0, "hi", 1, 8), "req-1",
                bytes.encode("req-1", "{}".getBytes(StandardCharsets.UTF_8)));
        exchange.start(System.nanoTime(), 0);
        return exchange;
    }

    private static void feed(EmbeddedChannel ch, String... pieces) {
        for (String piece : pieces) ch.writeInbound(Unpooled.copiedBuffer(piece, StandardCharsets.UTF_8));
    }

    private static String streamHead() {
        return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
    }

    private static String chunk(String data) {
        return Integer.toHexString(data.getBytes(StandardCharsets.UTF_8).length) + "\r\n" + data + "\r\n";
    }

    private static final String END = "0\r\n\r\n";

    private static String sse(List<String> events, String lineEnd) {
        StringBuilder sb = new StringBuilder();
        for (String e : events) sb.append("data: ").append(e).append(lineEnd).append(lineEnd);
        return sb.toString();
    }

    private static RequestRecord record(Exchange exchange) {
        assertTrue(exchange.completion().isDone(), "the record is complete");
        return exchange.completion().join();
    }

    private static String written(EmbeddedChannel ch) {
        ByteBuf out = ch.readOutbound();
        try {
            return out.toString(StandardCharsets.UTF_8);
        } finally {
            ReferenceCountUtil.release(out);
        }
    }

    @Test
    void theRequestIsWrittenWholeInOneBuffer() {
        EmbeddedChannel ch = connection();
        connections.add(ch);
        start();
        assertEquals("POST /v1/chat/completions HTTP/1.1\r\nHost: " + HOST + "\r\nX-Request-Id: req-1\r\n"
                + "content-length: 2\r\n\r\n{}", written(ch));
        assertNull(ch.readOutbound(), "one write");
    }

    @Test
    void sseLinesSplitAcrossBuffersAndChunksAreJoined() {
        EmbeddedChannel ch = connection();
        connections.add(ch);
        Exchange exchange = start();
        String stream = sse(Streams.standard(), "\n");
        // split inside the head, inside "data:", inside the JSON, and between the two newlines of an event's end
        int a = stream.indexOf("Hello") + 2;
        int b = stream.indexOf("world") + 3;
        feed(ch, streamHead().substring(0, 20), streamHead().substring(20), chunk(stream.substring(0, 3)),
                chunk(stream.substring(3, a)));
        assertFalse(exchange.completion().isDone());
        String rest = chunk(stream.substring(a, b)) + chunk(stream.substring(b)) + END;
        for (int i = 0; i < rest.length(); i += 7) feed(ch, rest.substring(i, Math.min(rest.length(), i + 7)));

        RequestRecord r = record(exchange);
        assertNull(r.failure(), () -> String.valueOf(r.failure()));
        assertEquals("Hello world!", r.generatedText());
        assertEquals(3, r.contentEventNanos().length);
        assertEquals(List.of(true), releases, "a complete keep-alive response goes back to the pool");
    }

    @Test
    void crLfAndCrOnlyLineEndsAreEventBoundaries() {
        for (String lineEnd : List.of("\r\n", "\r")) {
            EmbeddedChannel ch = connection();
            connections.add(ch);
            Exchange exchange = start();
            feed(ch, streamHead(), chunk(sse(Streams.standard(), lineEnd)), END);
            RequestRecord r = record(exchange);
            assertNull(r.failure(), () -> lineEnd.replace("\r", "CR").replace("\n", "LF") + ": " + r.failure());
            assertEquals("Hello world!", r.generatedText());
            assertEquals(3, r.contentEventNanos().length);
        }
    }

    @Test
    void aStreamEndingWithoutDoneKeepsItsDataAndFailsOnlyWithoutAFinish() {
        EmbeddedChannel ch = connection();
        connections.add(ch);
        Exchange exchange = start();
        List<String> events = new ArrayList<>(Streams.standard());
        events.remove("[DONE]");
        feed(ch, streamHead(), chunk(sse(events, "\n")), END);
        RequestRecord r = record(exchange);
        assertNull(r.failure(), "a clean end after the finish event is llmperf's success");
        assertTrue(r.tags().endMarkerMissing());
        assertEquals("Hello world!", r.generatedText());

        EmbeddedChannel cut = connection();
        connections.add(cut);
        Exchange unfinished = start();
        feed(cut, streamHead(), chunk(sse(events.subList(0, 3), "\n")), END); // role, Hello, world: no finish
        RequestRecord u = record(unfinished);
        assertEquals(FailureKind.MISSING_DONE, u.failure().kind());
        assertFalse(u.tags().endMarkerMissing());
        assertEquals("Hello world", u.generatedText());
    }

    @Test
    void tooManyRequestsKeepsTheStatusTheBodyAndRetryAfter() {
        EmbeddedChannel ch = connection();
        connections.add(ch);
        Exchange exchange = start();
        String body = "{\"error\":{\"message\":\"slow down\"}}";
        feed(ch, "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body.length() + "\r\n\r\n" + body);
        RequestRecord r = record(exchange);
        assertEquals(FailureKind.HTTP_STATUS, r.failure().kind());
        assertEquals(429, r.failure().code());
        assertTrue(r.failure().message().contains("slow down"), r.failure().message());
        assertTrue(r.failure().message().endsWith("[Retry-After: 7]"), r.failure().message());
        assertEquals(List.of(true), releases, "a complete error response leaves the connection usable");
    }

    @Test
    void aCloseMidStreamIsConnectionClosedWithTheDataSoFar() {
        EmbeddedChannel ch = connection();
        connections.add(ch);
        Exchange exchange = start();
        feed(ch, streamHead(), chunk(sse(Streams.standard().subList(0, 3), "\n")));
        assertFalse(exchange.completion().isDone());
        ch.close();
        RequestRecord r = record(exchange);
        assertEquals(FailureKind.CONNECTION_CLOSED, r.failure().kind());
        assertTrue(r.failure().message().contains("mid-stream"), r.failure().message());
        assertEquals("Hello world", r.generatedText());
        assertEquals(List.of(false), releases);
    }

    @Test
    void aResponseBeforeTheRequestIsFullyWrittenIsStillRead() {
        EmbeddedChannel ch = connection();
        HeldWrites held = new HeldWrites();
        ch.pipeline().addFirst(held);
        connections.add(ch);
        Exchange exchange = start();
        assertNotNull(held.promise, "the write is still pending");

        feed(ch, streamHead(), chunk(sse(Streams.standard(), "\n")), END);
        RequestRecord r = record(exchange);
        assertNull(r.failure(), () -> String.valueOf(r.failure()));
        assertEquals("Hello world!", r.generatedText());
        assertEquals(RequestRecord.NEVER, r.phases().requestWrittenNanos(), "the write had not completed");
        assertTrue(r.phases().responseHeadersNanos() >= 0);

        held.promise.setSuccess(); // finishing the write afterwards changes nothing
        assertEquals(r, exchange.completion().join());
    }

    @Test
    void aStaleReusedConnectionClosedBeforeTheWriteMovesTheRequestToAnotherOne() {
        EmbeddedChannel stale = connection();
        stale.close();
        EmbeddedChannel fresh = connection();
        connections.add(stale);
        connections.add(fresh);
        reused = true;
        Exchange exchange = start();
        assertTrue(written(fresh).startsWith("POST "), "sent on the second connection");
        feed(fresh, streamHead(), chunk(sse(Streams.standard(), "\n")), END);
        RequestRecord r = record(exchange);
        assertNull(r.failure(), () -> String.valueOf(r.failure()));
        assertEquals(List.of(false, true), releases, "the stale one closed, the fresh one kept");
    }

    @Test
    void aNewConnectionClosedAfterTheWriteIsRecordedNeverResent() {
        EmbeddedChannel ch = connection();
        connections.add(ch);
        connections.add(connection()); // must stay unused
        Exchange exchange = start();
        written(ch);
        ch.close();
        RequestRecord r = record(exchange);
        assertEquals(FailureKind.CONNECTION_CLOSED, r.failure().kind());
        assertEquals(1, used.size(), "the request was not sent again");
    }

    /** Holds every write's promise, so the request stays "being written". */
    private static final class HeldWrites extends ChannelOutboundHandlerAdapter {
        ChannelPromise promise;

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise p) {
            ReferenceCountUtil.release(msg);
            promise = p;
        }
    }
}
