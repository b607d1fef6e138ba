package io.llmperf4j.engine.client.impl;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;

import java.util.Map;

/**
 * A client's HTTP/1.1 POST requests as the bytes that go on the wire, one direct buffer per request. The request line
 * and the headers every request shares are encoded once; a request adds its {@code X-Request-Id}, its
 * {@code Content-Length} and its body. Built on the sending thread before the request's clock starts, so the event
 * loop only writes one ready buffer (one write, one flush, no encoding between the start stamp and the socket).
 * Header bytes follow Netty's own encoder: names and values as given, each char truncated to one byte. A request of a
 * multi-turn session also carries {@code X-Correlation-ID: <session id>}, as AIPerf sends a trace's session id, so a
 * session-affinity router can keep a conversation on one replica; a request outside sessions does not (llmperf sends
 * none), and extra headers that set one win.
 */
public final class RequestBytes {

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] REQUEST_ID = "X-Request-Id: ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] CONTENT_LENGTH = "content-length: ".getBytes(
            java.nio.charset.StandardCharsets.US_ASCII);
    /** The header that names a request's session (AIPerf's name for it). */
    public static final String CORRELATION_ID = "X-Correlation-ID";
    private static final byte[] CORRELATION = (CORRELATION_ID + ": ").getBytes(
            java.nio.charset.StandardCharsets.US_ASCII);

    private final byte[] head;
    private final ByteBufAllocator allocator;
    /** The extra headers set their own X-Correlation-ID: the session's is not added. */
    private final boolean correlationGiven;

    /**
     * @param pathAndQuery the request target
     * @param shared       headers every request sends; an {@code X-Request-Id} or {@code Content-Length} among them is
     *                     replaced by the request's own
     */
    public RequestBytes(String pathAndQuery, HttpHeaders shared, ByteBufAllocator allocator) {
        this.allocator = allocator;
        StringBuilder sb = new StringBuilder(256).append("POST ").append(pathAndQuery).append(" HTTP/1.1\r\n");
        boolean correlation = false;
        for (Map.Entry<String, String> h : shared) {
            String name = h.getKey();
            if (name.equalsIgnoreCase("X-Request-Id") || HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name)) {
                continue;
            }
            correlation |= name.equalsIgnoreCase(CORRELATION_ID);
            sb.append(name).append(": ").append(h.getValue()).append("\r\n");
        }
        correlationGiven = correlation;
        head = new byte[sb.length()];
        for (int i = 0; i < head.length; i++) {
            char c = sb.charAt(i);
            head[i] = (byte) (c > 255 ? '?' : c);
        }
    }

    /** The whole request: shared head, then {@code X-Request-Id}, {@code Content-Length}, a blank line, the body. */
    public ByteBuf encode(String requestId, byte[] body) {
        return encode(requestId, null, body);
    }

    /**
     * As {@link #encode(String, byte[])}, with {@code X-Correlation-ID: <sessionId>} after the request id when
     * {@code sessionId} is not null (and the extra headers set none); its characters outside printable ASCII (a line
     * break would end the header) are sent as {@code _}.
     */
    public ByteBuf encode(String requestId, String sessionId, byte[] body) {
        String correlation = sessionId == null || correlationGiven ? null : headerValue(sessionId);
        String length = Integer.toString(body.length);
        int size = head.length + REQUEST_ID.length + requestId.length() + 2 + CONTENT_LENGTH.length + length.length()
                + 4 + body.length + (correlation == null ? 0 : CORRELATION.length + correlation.length() + 2);
        ByteBuf buf = allocator.directBuffer(size, size);
        buf.writeBytes(head)
                .writeBytes(REQUEST_ID);
        ByteBufUtil.writeAscii(buf, requestId);
        if (correlation != null) {
            buf.writeBytes(CRLF).writeBytes(CORRELATION);
            ByteBufUtil.writeAscii(buf, correlation);
        }
        buf.writeBytes(CRLF).writeBytes(CONTENT_LENGTH);
        ByteBufUtil.writeAscii(buf, length);
        buf.writeBytes(CRLF).writeBytes(CRLF).writeBytes(body);
        return buf;
    }

    private static String headerValue(String id) {
        StringBuilder b = new StringBuilder(id.length());
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '_');
        }
        return b.toString();
    }
}
