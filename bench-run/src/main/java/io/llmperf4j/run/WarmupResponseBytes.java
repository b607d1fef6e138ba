package io.llmperf4j.run;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The bytes {@link WarmupResponder} answers with, built once into direct buffers and handed out as duplicates: a
 * response is a few slices of shared buffers, sent in one gathering write, instead of being built anew byte by byte
 * (thousands of events a round) and copied by the JDK from a heap buffer into a direct one on every socket write.
 * Measured, the responder's thread took about the same CPU per request either way (its socket writes are most of
 * it); what is left is less garbage and less of the warm-up's CPU in code the run never runs.
 *
 * <p>A response of n tokens is n + 2 events (n + 3 with usage): the role event, n - 1 content events, the last
 * content event (finish reason length), the usage event when asked for, {@code [DONE]}; then the last (empty) HTTP
 * chunk. The words cycle through {@link #WORDS}, so every response's first events are the same bytes: one shared
 * run of them, as long as the longest response so far, serves every length. Only the end differs, and is cached by
 * its shape. Not thread-safe: the responder's one thread uses it.
 */
final class WarmupResponseBytes {
    /** Events to an HTTP chunk in the grouped framing (servers that flush several events a write). */
    static final int EVENTS_PER_GROUP = 16;
    /** Ends are few in a warm-up (a dozen lengths); past this many shapes the cache starts over. */
    private static final int MAX_CACHED_ENDS = 512;
    private static final byte[] CRLF = utf8("\r\n");
    private static final byte[] HEX_DIGITS = utf8("0123456789abcdef");
    /** Words of generated text as a server's tokens come: a leading space, punctuation, a line break, a quote. */
    static final String[] WORDS = {" Shall", " I", " compare", " thee", " to", " a", " summer", "'s", " day",
            "?", "\n", "Thou", " art", " more", " lovely", " and", " more", " temperate", ":", "\n\n", "Rough",
            " winds", " do", " shake", " the", " darling", " buds", " of", " May", ",", " \"and", "\"", " summer",
            "\u2019s", " lease", " hath", " all", " too", " short", " a", " date", ";", " \uD83E\uDD99", " 1", "2", "3",
            ".", " The"};
    /** Each word's content event (SSE bytes), before the last token and as the last (finish reason length). */
    private static final byte[][] TOKEN_EVENTS = new byte[WORDS.length][];
    private static final byte[][] LAST_TOKEN_EVENTS = new byte[WORDS.length][];
    private static final byte[] ROLE_EVENT = event(chunk("{\"role\":\"assistant\",\"content\":\"\"}", "null"));
    private static final byte[] DONE_EVENT = event("[DONE]");
    private static final byte[] LAST_HTTP_CHUNK = utf8("0\r\n\r\n");

    static {
        for (int i = 0; i < WORDS.length; i++) {
            String delta = "{\"content\":\"" + WORDS[i].replace("\"", "\\\"").replace("\n", "\\n") + "\"}";
            TOKEN_EVENTS[i] = event(chunk(delta, "null"));
            LAST_TOKEN_EVENTS[i] = event(chunk(delta, "\"length\""));
        }
    }

    /**
     * Two heads in turn: header names in lower case (vLLM's uvicorn, Netty) and capitalized (Node, many gateways);
     * the client's case-insensitive header matching has a path for each.
     */
    private static final ByteBuffer[] HEADS = {
            direct(utf8("HTTP/1.1 200 OK\r\ndate: Thu, 03 Dec 2026 12:00:00 GMT\r\nserver: llmperf4j-warmup\r\n"
                    + "content-type: text/event-stream; charset=utf-8\r\ntransfer-encoding: chunked\r\n\r\n")),
            direct(utf8("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                    + "Connection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n"))};
    /** How many heads a connection's responses take in turn. */
    static final int HEADS_IN_TURN = HEADS.length;
    private static final ByteBuffer NOT_FOUND = direct(utf8("HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n"));
    /** The role event as one HTTP chunk: a paced response's first, and an ungrouped one's. */
    private static final ByteBuffer ROLE_CHUNK = direct(frame(new Events(Integer.MAX_VALUE, false, 0), 0, 1, 1));
    /** The first group of the grouped framing: the role event and the first 15 content events. */
    private static final ByteBuffer FIRST_GROUP = direct(frame(new Events(Integer.MAX_VALUE, false, 0), 0,
            EVENTS_PER_GROUP, EVENTS_PER_GROUP));
    /** Each word's content event as one HTTP chunk, for paced streams. */
    private static final ByteBuffer[] TOKEN_CHUNKS = new ByteBuffer[WORDS.length];

    static {
        for (int i = 0; i < WORDS.length; i++) {
            TOKEN_CHUNKS[i] = direct(frame(new Events(Integer.MAX_VALUE, false, 0), i + 1, i + 2, 1));
        }
    }

    /** Content events 1, 2, ... (never the last), one an HTTP chunk. */
    private Run single = new Run(1, 0);
    /** Groups 1, 2, ... of the grouped framing (group 0 is {@link #FIRST_GROUP}): content events only. */
    private Run grouped = new Run(EVENTS_PER_GROUP, 0);
    private final Map<End, ByteBuffer> ends = new HashMap<>();

    /** The head of the {@code response}-th response on a connection. */
    static ByteBuffer head(int response) {
        return HEADS[response % HEADS.length].duplicate();
    }

    /** A 404 with no body. */
    static ByteBuffer notFound() {
        return NOT_FOUND.duplicate();
    }

    /** The role event's HTTP chunk. */
    static ByteBuffer roleChunk() {
        return ROLE_CHUNK.duplicate();
    }

    /** The HTTP chunk of content event {@code token} (0-based) when it is not a response's last. */
    static ByteBuffer tokenChunk(int token) {
        return TOKEN_CHUNKS[token % WORDS.length].duplicate();
    }

    /**
     * An unpaced response of {@code tokens} tokens after {@code head}: every event an HTTP chunk, or
     * {@value #EVENTS_PER_GROUP} to a chunk when {@code groupedFraming}.
     */
    ByteBuffer[] whole(ByteBuffer head, int tokens, boolean usage, int promptTokens, boolean groupedFraming) {
        if (!groupedFraming) {
            // the role event, content events 1 .. tokens - 1 from the shared run, the end from the last token on
            return new ByteBuffer[] {head, roleChunk(), (single = single.atLeast(tokens - 1)).first(tokens - 1),
                    end(tokens, usage, promptTokens, false, tokens)};
        }
        int fullGroups = tokens / EVENTS_PER_GROUP; // groups of events before the last token's
        if (fullGroups == 0) return new ByteBuffer[] {head, end(tokens, usage, promptTokens, true, 0)};
        return new ByteBuffer[] {head, FIRST_GROUP.duplicate(),
                (grouped = grouped.atLeast(fullGroups - 1)).first(fullGroups - 1),
                end(tokens, usage, promptTokens, true, fullGroups * EVENTS_PER_GROUP)};
    }

    /**
     * A response's events from {@code fromEvent} on (which is the last token's or a group's first), framed one or
     * {@value #EVENTS_PER_GROUP} to an HTTP chunk, and the last (empty) HTTP chunk.
     */
    ByteBuffer end(int tokens, boolean usage, int promptTokens, boolean groupedFraming, int fromEvent) {
        End shape = new End(tokens, usage, promptTokens, groupedFraming, fromEvent);
        ByteBuffer bytes = ends.get(shape);
        if (bytes == null) {
            if (ends.size() >= MAX_CACHED_ENDS) ends.clear();
            Events events = new Events(tokens, usage, promptTokens);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(frame(events, fromEvent, events.count(), groupedFraming ? EVENTS_PER_GROUP : 1));
            out.writeBytes(LAST_HTTP_CHUNK);
            bytes = direct(out.toByteArray());
            ends.put(shape, bytes);
        }
        return bytes.duplicate();
    }

    /** What an end's bytes depend on. */
    private record End(int tokens, boolean usage, int promptTokens, boolean grouped, int fromEvent) {
    }

    /**
     * HTTP chunks of {@code perChunk} events each, from content event 1 on (a response's events after the role
     * event, or after the first group), none of them a last token: {@code chunks} of them and where each starts.
     */
    private static final class Run {
        private final int perChunk;
        private final ByteBuffer bytes;
        /** {@code starts[k]}: where chunk k starts; {@code starts[chunks]} is the end. */
        private final int[] starts;

        Run(int perChunk, int chunks) {
            this.perChunk = perChunk;
            this.starts = new int[chunks + 1];
            Events events = new Events(Integer.MAX_VALUE, false, 0);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int first = perChunk == 1 ? 1 : perChunk; // after the role event, or after the first group
            for (int k = 0; k < chunks; k++) {
                starts[k] = out.size();
                int from = first + k * perChunk;
                out.writeBytes(frame(events, from, from + perChunk, perChunk));
            }
            starts[chunks] = out.size();
            bytes = direct(out.toByteArray());
        }

        /** This run when it has {@code chunks}, else a longer one (twice as long at least: it grows rarely). */
        Run atLeast(int chunks) {
            int have = starts.length - 1;
            return chunks <= have ? this : new Run(perChunk, Math.max(chunks, 2 * have));
        }

        /** Its first {@code chunks} chunks. */
        ByteBuffer first(int chunks) {
            return bytes.duplicate().limit(starts[chunks]);
        }
    }

    /** The events of one response, by index. */
    private record Events(int tokens, boolean usage, int promptTokens) {
        int count() {
            return tokens + (usage ? 3 : 2);
        }

        byte[] at(int event) {
            if (event == 0) return ROLE_EVENT;
            if (event < tokens) return TOKEN_EVENTS[(event - 1) % WORDS.length];
            if (event == tokens) return LAST_TOKEN_EVENTS[(event - 1) % WORDS.length];
            if (usage && event == tokens + 1) {
                return event("{\"id\":\"chatcmpl-warmup\",\"object\":\"chat.completion.chunk\","
                        + "\"created\":1796299200,\"model\":\"warmup\",\"choices\":[],\"usage\":{\"prompt_tokens\":"
                        + promptTokens + ",\"total_tokens\":" + (promptTokens + tokens) + ",\"completion_tokens\":"
                        + tokens + "}}");
            }
            return DONE_EVENT;
        }
    }

    /** Events {@code [from, to)} of {@code events}, {@code perChunk} to an HTTP chunk (the last may hold fewer). */
    private static byte[] frame(Events events, int from, int to, int perChunk) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int chunkStart = from; chunkStart < to; chunkStart += perChunk) {
            ByteArrayOutputStream payload = new ByteArrayOutputStream();
            for (int e = chunkStart; e < Math.min(to, chunkStart + perChunk); e++) payload.writeBytes(events.at(e));
            out.writeBytes(Integer.toHexString(payload.size()).getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(CRLF);
            out.writeBytes(payload.toByteArray());
            out.writeBytes(CRLF);
        }
        return out.toByteArray();
    }

    private static String chunk(String delta, String finishReason) {
        return "{\"id\":\"chatcmpl-warmup\",\"object\":\"chat.completion.chunk\",\"created\":1796299200,"
                + "\"model\":\"warmup\",\"choices\":[{\"index\":0,\"delta\":" + delta
                + ",\"logprobs\":null,\"finish_reason\":" + finishReason + "}]}";
    }

    /** The SSE event {@code data: DATA}. */
    private static byte[] event(String data) {
        return utf8("data: " + data + "\n\n");
    }

    private static ByteBuffer direct(byte[] bytes) {
        return ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
