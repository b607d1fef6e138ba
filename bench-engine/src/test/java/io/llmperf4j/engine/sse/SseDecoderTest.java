package io.llmperf4j.engine.sse;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SseDecoderTest {

    private static final int MAX = 1 << 20;

    /** A stream exercising every rule; {@code %n} is replaced by the line end under test. */
    private static final String SAMPLE = ": keepalive%n%n"
            + "data: {\"a\":1}%n%n"
            + "event: message%nid: 7%nretry: 100%ndata:{\"b\":2}%n%n"
            + "data: line1%ndata: line2%n%n"
            + "data%n%n"
            + "unknown: x%n%n"
            + "data:  two spaces%n%n"
            + "data: [DONE]%n%n";

    private static final List<String> SAMPLE_DATA = List.of(
            "{\"a\":1}", "{\"b\":2}", "line1\nline2", "", " two spaces", "[DONE]");

    private static String sample(String eol) {
        return SAMPLE.replace("%n", eol);
    }

    private static List<SseEvent> decode(SseDecoder decoder, long nanos, byte[]... parts) {
        List<SseEvent> events = new ArrayList<>();
        for (byte[] part : parts) {
            ByteBuf buf = Unpooled.wrappedBuffer(part);
            decoder.decode(buf, nanos, events::add);
            assertFalse(buf.isReadable(), "decoder consumes every byte");
        }
        return events;
    }

    private static List<String> data(List<SseEvent> events) {
        return events.stream().map(SseEvent::dataAsString).toList();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] slice(byte[] all, int from, int to) {
        byte[] out = new byte[to - from];
        System.arraycopy(all, from, out, 0, out.length);
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"\n", "\r\n", "\r"})
    void decodesEveryRuleWithEachLineEnd(String eol) {
        List<SseEvent> events = decode(new SseDecoder(MAX), 5, bytes(sample(eol)));
        assertEquals(SAMPLE_DATA, data(events));
        assertEquals("message", events.get(1).type());
        assertNull(events.get(0).type());
        assertNull(events.get(2).type(), "event type is reset after dispatch");
        assertTrue(events.get(5).isDoneMarker());
        assertFalse(events.get(0).isDoneMarker());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\n", "\r\n", "\r"})
    void everySingleSplitPointGivesTheSameEvents(String eol) {
        byte[] all = bytes(sample(eol));
        for (int i = 0; i <= all.length; i++) {
            List<SseEvent> events = decode(new SseDecoder(MAX), 1, slice(all, 0, i), slice(all, i, all.length));
            assertEquals(SAMPLE_DATA, data(events), "split at " + i);
        }
    }

    @Test
    void everyPairOfSplitPointsGivesTheSameEvents() {
        byte[] all = bytes("data: ab\r\ndata: c\r\n\r\n: x\r\rdata: d\n\r\n");
        List<String> expected = List.of("ab\nc", "d");
        for (int i = 0; i <= all.length; i++) {
            for (int j = i; j <= all.length; j++) {
                List<SseEvent> events = decode(new SseDecoder(MAX), 1,
                        slice(all, 0, i), slice(all, i, j), slice(all, j, all.length));
                assertEquals(expected, data(events), "split at " + i + ", " + j);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"\n", "\r\n", "\r"})
    void oneBytePerRead(String eol) {
        byte[] all = bytes(sample(eol));
        byte[][] parts = new byte[all.length][];
        for (int i = 0; i < all.length; i++) parts[i] = new byte[] {all[i]};
        assertEquals(SAMPLE_DATA, data(decode(new SseDecoder(MAX), 1, parts)));
    }

    @Test
    void randomSplitsOfMixedLineEnds() {
        String mixed = "data: 1\r\n\r\ndata: 2\n\ndata: 3\r\rdata: 4\r\n\ndata: 5\n\r\n";
        byte[] all = bytes(mixed);
        Random random = new Random(42);
        for (int round = 0; round < 500; round++) {
            List<byte[]> parts = new ArrayList<>();
            int from = 0;
            while (from < all.length) {
                int to = Math.min(all.length, from + 1 + random.nextInt(6));
                parts.add(slice(all, from, to));
                from = to;
            }
            assertEquals(List.of("1", "2", "3", "4", "5"),
                    data(decode(new SseDecoder(MAX), 1, parts.toArray(new byte[0][]))));
        }
    }

    @Test
    void lentEventsCarryTheBytesOfTheCopiedOnes() {
        byte[] all = bytes(sample("\r\n"));
        List<SseEvent> copied = decode(new SseDecoder(MAX), 3, all);
        List<SseEvent> lent = new ArrayList<>();
        SseEventSink sink = new SseEventSink() {
            @Override
            public void onEvent(SseEvent event) {
                throw new AssertionError("the decoder lends its bytes");
            }

            @Override
            public void onEvent(String type, byte[] data, int from, int to, long arrivalNanos) {
                lent.add(new SseEvent(type, Arrays.copyOfRange(data, from, to), arrivalNanos));
            }
        };
        SseDecoder decoder = new SseDecoder(MAX);
        for (int i = 0; i < all.length; i += 5) {
            decoder.decode(Unpooled.wrappedBuffer(all, i, Math.min(5, all.length - i)), 3, sink);
        }
        assertEquals(copied, lent);
        assertEquals("message", lent.get(1).type());
    }

    @Test
    void crSplitFromItsLfIsOneLineEnd() {
        // a decoder that treated the LF as a second line end would dispatch "a" alone
        List<SseEvent> events = decode(new SseDecoder(MAX), 1,
                bytes("data: a\r"), bytes("\ndata: b\r"), bytes("\n\r"), bytes("\n"));
        assertEquals(List.of("a\nb"), data(events));
    }

    @Test
    void manyEventsInOneRead() {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < 1000; i++) s.append("data: ").append(i).append("\n\n");
        List<SseEvent> events = decode(new SseDecoder(MAX), 1, bytes(s.toString()));
        assertEquals(1000, events.size());
        assertEquals("999", events.get(999).dataAsString());
    }

    @Test
    void eventCarriesTheArrivalTimeOfTheReadThatCompletedIt() {
        SseDecoder decoder = new SseDecoder(MAX);
        List<SseEvent> events = new ArrayList<>();
        decoder.decode(Unpooled.wrappedBuffer(bytes("data: first\n\ndata: sec")), 100, events::add);
        decoder.decode(Unpooled.wrappedBuffer(bytes("ond\n")), 200, events::add);
        decoder.decode(Unpooled.wrappedBuffer(bytes("\n")), 300, events::add);
        assertEquals(2, events.size());
        assertEquals(100, events.get(0).arrivalNanos());
        assertEquals(300, events.get(1).arrivalNanos(), "the blank line that ends the event came at 300");
        assertEquals("second", events.get(1).dataAsString());
    }

    @Test
    void byteOrderMarkIsSkippedEvenWhenSplit() {
        byte[] all = bytes("\uFEFFdata: x\n\n");
        for (int i = 0; i <= all.length; i++) {
            assertEquals(List.of("x"), data(decode(new SseDecoder(MAX), 1, slice(all, 0, i),
                    slice(all, i, all.length))));
        }
    }

    @Test
    void utf8SplitInsideACharacterIsReassembled() {
        byte[] all = bytes("data: héllo €\n\n");
        for (int i = 0; i <= all.length; i++) {
            assertEquals(List.of("héllo €"), data(decode(new SseDecoder(MAX), 1, slice(all, 0, i),
                    slice(all, i, all.length))));
        }
    }

    @Test
    void blankLinesAndCommentsAloneDispatchNothing() {
        assertEquals(List.of(), decode(new SseDecoder(MAX), 1, bytes("\n\n: c\n\nevent: x\n\nid: 3\n\n")));
    }

    @Test
    void eventOfExactlyTheMaximumSucceedsAndOneByteMoreFails() {
        int max = 1000;
        String exact = "x".repeat(max);
        assertEquals(List.of(exact), data(decode(new SseDecoder(max), 1, bytes("data: " + exact + "\n\n"))));

        String multiLine = "y".repeat(499) + "\n" + "z".repeat(500); // 1000 bytes with the joining LF
        assertEquals(List.of(multiLine), data(decode(new SseDecoder(max), 1,
                bytes("data: " + "y".repeat(499) + "\ndata: " + "z".repeat(500) + "\n\n"))));

        TooLongSseEventException e = assertThrows(TooLongSseEventException.class,
                () -> decode(new SseDecoder(max), 1, bytes("data: " + "x".repeat(max + 1) + "\n\n")));
        assertEquals("SSE event (1001 bytes so far) exceeds the allowed maximum (1000 bytes); raise maxEventBytes",
                e.getMessage());
        assertEquals(1001, e.eventBytes());
        assertEquals(1000, e.maxEventBytes());
    }

    @Test
    void endlessLineFailsWithoutBufferingUnboundedly() {
        SseDecoder decoder = new SseDecoder(100);
        byte[] chunk = bytes("a".repeat(50));
        TooLongSseEventException e = assertThrows(TooLongSseEventException.class, () -> {
            for (int i = 0; i < 10; i++) decode(decoder, 1, chunk);
        });
        assertTrue(e.getMessage().contains("(100 bytes)"), e.getMessage());
        assertTrue(e.eventBytes() > 100);
    }

    @Test
    void largeEventsAcrossManyReads() {
        String big = "b".repeat(300_000);
        byte[] all = bytes("data: " + big + "\n\ndata: small\n\n");
        List<byte[]> parts = new ArrayList<>();
        for (int from = 0; from < all.length; from += 8192) parts.add(slice(all, from, Math.min(all.length, from + 8192)));
        List<SseEvent> events = decode(new SseDecoder(MAX), 1, parts.toArray(new byte[0][]));
        assertEquals(List.of(big, "small"), data(events));
    }

    @Test
    void finishDispatchesAnUnterminatedLastEvent() {
        SseDecoder decoder = new SseDecoder(MAX);
        List<SseEvent> events = decode(decoder, 1, bytes("data: a\n\ndata: [DONE]"));
        assertEquals(List.of("a"), data(events));
        assertTrue(decoder.hasPendingBytes());
        decoder.finish(9, events::add);
        assertEquals(List.of("a", "[DONE]"), data(events));
        assertEquals(9, events.get(1).arrivalNanos());
        assertFalse(decoder.hasPendingBytes());
    }

    @Test
    void doneMarkerToleratesSurroundingWhitespaceOnly() {
        assertTrue(new SseEvent(null, bytes(" [DONE] "), 0).isDoneMarker());
        assertFalse(new SseEvent(null, bytes("[DONE]x"), 0).isDoneMarker());
        assertFalse(new SseEvent(null, bytes("DONE"), 0).isDoneMarker());
    }

    @Test
    void rejectsANonPositiveLimit() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new SseDecoder(0));
        assertEquals("maxEventBytes (0) must be >= 1", e.getMessage());
    }

    /** The lines the standard ignores, as the decoder hands them to {@link SseEventSink#onIgnoredLine}. */
    private static final class IgnoredLines implements SseEventSink {
        final List<String> lines = new ArrayList<>();
        final List<String> data = new ArrayList<>();

        @Override
        public void onEvent(SseEvent event) {
            data.add(event.dataAsString());
        }

        @Override
        public void onIgnoredLine(byte[] line, int from, int to) {
            lines.add(new String(line, from, to - from, StandardCharsets.UTF_8));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"\n", "\r\n", "\r"})
    void linesOfUnknownFieldsAreIgnoredButHandedOverAndNothingElseIs(String eol) {
        // QA (nodata): "hello" alone, and a chunk's JSON without "data: ", were dropped without a word
        String stream = (": keepalive%nid: 7%nretry: 100%nevent: message%ndata: one%n%n"
                + "hello%n{\"choices\":[{\"delta\":{\"content\":\"two\"}}]}%n%ndata: three%n%n").replace("%n", eol);
        byte[] all = bytes(stream);
        for (int split = 0; split <= all.length; split++) {
            SseDecoder decoder = new SseDecoder(MAX);
            IgnoredLines sink = new IgnoredLines();
            for (byte[] part : List.of(slice(all, 0, split), slice(all, split, all.length))) {
                decoder.decode(Unpooled.wrappedBuffer(part), 1, sink);
            }
            decoder.finish(2, sink);
            assertEquals(List.of("one", "three"), sink.data, "split " + split);
            assertEquals(List.of("hello", "{\"choices\":[{\"delta\":{\"content\":\"two\"}}]}"), sink.lines,
                    "split " + split);
        }
    }
}
