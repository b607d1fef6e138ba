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
 * Header bytes follow Netty's own encoder: names and values as given, each char truncated to one byte.
 */
public final class RequestBytes {

    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] REQUEST_ID = "X-Request-Id: ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] CONTENT_LENGTH = "content-length: ".getBytes(
            java.nio.charset.StandardCharsets.US_ASCII);

    private final byte[] head;
    private final ByteBufAllocator allocator;

    /**
     * @param pathAndQuery the request target
     * @param shared       headers every request sends; an {@code X-Request-Id} or {@code Content-Length} among them is
     *                     replaced by the request's own
     */
    public RequestBytes(String pathAndQuery, HttpHeaders shared, ByteBufAllocator allocator) {
        this.allocator = allocator;
        StringBuilder sb = new StringBuilder(256).append("POST ").append(pathAndQuery).append(" HTTP/1.1\r\n");
        for (Map.Entry<String, String> h : shared) {
            String name = h.getKey();
            if (name.equalsIgnoreCase("X-Request-Id") || HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name)) {
                continue;
            }
            sb.append(name).append(": ").append(h.getValue()).append("\r\n");
        }
        head = new byte[sb.length()];
        for (int i = 0; i < head.length; i++) {
            char c = sb.charAt(i);
            head[i] = (byte) (c > 255 ? '?' : c);
        }
    }

    /** The whole request: shared head, then {@code X-Request-Id}, {@code Content-Length}, a blank line, the body. */
    public ByteBuf encode(String requestId, byte[] body) {
        String length = Integer.toString(body.length);
        int size = head.length + REQUEST_ID.length + requestId.length() + 2 + CONTENT_LENGTH.length + length.length()
                + 4 + body.length;
        ByteBuf buf = allocator.directBuffer(size, size);
        buf.writeBytes(head)
                .writeBytes(REQUEST_ID);
        ByteBufUtil.writeAscii(buf, requestId);
        buf.writeBytes(CRLF).writeBytes(CONTENT_LENGTH);
        ByteBufUtil.writeAscii(buf, length);
        buf.writeBytes(CRLF).writeBytes(CRLF).writeBytes(body);
        return buf;
    }
}
