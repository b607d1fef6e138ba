package io.llmperf4j.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One request over a raw socket with "Connection: close", read until the server ends the connection: what the
 * bytes on the wire were and how the connection ended (clean EOF or an exception such as a reset).
 *
 * @param bytes   every byte received before the end
 * @param failure the exception that ended reading, or null for a clean EOF
 */
record RawExchange(byte[] bytes, IOException failure) {

    static RawExchange post(int port, String path, String body, String... headerLines) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(15_000); // a safety net against a hung test, never a timing assertion
            byte[] bodyBytes = body.getBytes(StandardCharsets.UTF_8);
            StringBuilder head = new StringBuilder("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nConnection: close\r\nContent-Length: " + bodyBytes.length
                    + "\r\n");
            for (String line : headerLines) head.append(line).append("\r\n");
            head.append("\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
            out.write(bodyBytes);
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            byte[] buffer = new byte[64 * 1024];
            try {
                for (int n; (n = in.read(buffer)) >= 0; ) received.write(buffer, 0, n);
                return new RawExchange(received.toByteArray(), null);
            } catch (IOException e) {
                return new RawExchange(received.toByteArray(), e);
            }
        }
    }

    String text() {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** The body after the header block, chunked framing left in place. */
    String rawBody() {
        String text = text();
        int end = text.indexOf("\r\n\r\n");
        return end < 0 ? "" : text.substring(end + 4);
    }

    /** The HTTP status of the response, or 0 when no status line arrived. */
    int status() {
        String text = text();
        return text.startsWith("HTTP/1.1 ") && text.length() >= 12 ? Integer.parseInt(text.substring(9, 12)) : 0;
    }

    /** The chunked body's payload joined (as far as it arrived), or the raw body when it is not chunked. */
    String payload() {
        String text = text();
        int headerEnd = text.indexOf("\r\n\r\n");
        if (headerEnd < 0) return "";
        if (!text.substring(0, headerEnd).toLowerCase().contains("transfer-encoding: chunked")) {
            return text.substring(headerEnd + 4);
        }
        StringBuilder payload = new StringBuilder();
        byte[] all = bytes;
        int pos = text.substring(0, headerEnd + 4).getBytes(StandardCharsets.UTF_8).length;
        while (pos < all.length) {
            int lineEnd = pos;
            while (lineEnd + 1 < all.length && !(all[lineEnd] == '\r' && all[lineEnd + 1] == '\n')) lineEnd++;
            if (lineEnd + 1 >= all.length) break;
            int size = Integer.parseInt(new String(all, pos, lineEnd - pos, StandardCharsets.US_ASCII).trim(), 16);
            if (size == 0) break;
            int start = lineEnd + 2;
            int end = Math.min(all.length, start + size);
            payload.append(new String(all, start, end - start, StandardCharsets.UTF_8));
            pos = end + 2;
        }
        return payload.toString();
    }

    /** Whether the chunked body ended with its terminating zero-length chunk. */
    boolean chunkedTerminated() {
        return text().endsWith("\r\n0\r\n\r\n");
    }
}
