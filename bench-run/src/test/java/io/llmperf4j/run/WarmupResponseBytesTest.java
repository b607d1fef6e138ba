package io.llmperf4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The responder's canned bytes against a plain rebuild of each response (as the responder built them before it
 * cached them): every length around the group and word-cycle boundaries, both framings, with and without usage,
 * unpaced and paced, byte for byte; and every piece handed out is a direct buffer (no copy on the socket write).
 */
class WarmupResponseBytesTest {
    private static final int[] LENGTHS = {1, 2, 15, 16, 17, 31, 32, 33, 47, 48, 49, 95, 96, 97, 300, 1300, 40, 7};

    @Test
    void wholeResponsesAreTheEventsOfAPlainRebuildInDirectBuffers() {
        WarmupResponseBytes bytes = new WarmupResponseBytes();
        for (int round = 0; round < 2; round++) { // the second round from the grown runs and the cached ends
            for (int tokens : LENGTHS) {
                for (boolean usage : new boolean[] {false, true}) {
                    for (boolean grouped : new boolean[] {false, true}) {
                        ByteBuffer head = WarmupResponseBytes.head(round);
                        ByteBuffer[] parts = bytes.whole(head, tokens, usage, 21, grouped);
                        for (ByteBuffer part : parts) assertTrue(part.isDirect(), "a direct buffer");
                        String expected = latin1(WarmupResponseBytes.head(round)) + reference(tokens, usage, 21,
                                grouped ? WarmupResponseBytes.EVENTS_PER_GROUP : 1);
                        assertEquals(expected, latin1(parts), tokens + " tokens, usage " + usage + ", grouped "
                                + grouped + ", round " + round);
                    }
                }
            }
        }
    }

    @Test
    void aPacedResponseOverTheSocketIsTheSameEventsOneAChunk() throws Exception {
        try (WarmupResponder responder = WarmupResponder.start()) {
            URI base = URI.create(responder.baseUrl());
            try (Socket socket = new Socket(base.getHost(), base.getPort())) {
                socket.setSoTimeout(10_000);
                for (int tokens : new int[] {1, 50, 17}) {
                    String body = "{\"model\":\"" + WarmupResponder.PACED_MODEL + "\",\"max_tokens\":" + tokens
                            + ",\"stream\":true,\"stream_options\":{\"include_usage\":true}}";
                    socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                            + "Content-Length: " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
                    String response = readUntil(socket.getInputStream(), "\r\n0\r\n\r\n");
                    assertEquals(reference(tokens, true, body.length() / 4, 1),
                            response.substring(response.indexOf("\r\n\r\n") + 4), tokens + " tokens");
                }
            }
        }
    }

    /** The response body (one char per byte) built plainly: every event, then framed {@code perChunk} to a chunk. */
    private static String reference(int tokens, boolean usage, int promptTokens, int perChunk) {
        List<String> events = new ArrayList<>();
        events.add(event("{\"role\":\"assistant\",\"content\":\"\"}", "null"));
        for (int t = 0; t < tokens; t++) {
            String word = WarmupResponseBytes.WORDS[t % WarmupResponseBytes.WORDS.length];
            events.add(event("{\"content\":\"" + word.replace("\"", "\\\"").replace("\n", "\\n") + "\"}",
                    t == tokens - 1 ? "\"length\"" : "null"));
        }
        if (usage) {
            events.add("data: {\"id\":\"chatcmpl-warmup\",\"object\":\"chat.completion.chunk\",\"created\":1796299200,"
                    + "\"model\":\"warmup\",\"choices\":[],\"usage\":{\"prompt_tokens\":" + promptTokens
                    + ",\"total_tokens\":" + (promptTokens + tokens) + ",\"completion_tokens\":" + tokens + "}}\n\n");
        }
        events.add("data: [DONE]\n\n");
        StringBuilder body = new StringBuilder();
        for (int from = 0; from < events.size(); from += perChunk) {
            String payload = latin1(String.join("", events.subList(from, Math.min(events.size(), from + perChunk))));
            body.append(Integer.toHexString(payload.length())).append("\r\n").append(payload).append("\r\n");
        }
        return body.append("0\r\n\r\n").toString();
    }

    private static String event(String delta, String finishReason) {
        return "data: {\"id\":\"chatcmpl-warmup\",\"object\":\"chat.completion.chunk\",\"created\":1796299200,"
                + "\"model\":\"warmup\",\"choices\":[{\"index\":0,\"delta\":" + delta
                + ",\"logprobs\":null,\"finish_reason\":" + finishReason + "}]}\n\n";
    }

    /** UTF-8 text as one char per byte: chunk sizes count bytes, and some words are not ASCII. */
    private static String latin1(String text) {
        return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    private static String latin1(ByteBuffer... parts) {
        StringBuilder all = new StringBuilder();
        for (ByteBuffer part : parts) {
            byte[] bytes = new byte[part.remaining()];
            part.duplicate().get(bytes);
            all.append(new String(bytes, StandardCharsets.ISO_8859_1));
        }
        return all.toString();
    }

    private static String readUntil(InputStream in, String end) throws Exception {
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        while (!seen.toString(StandardCharsets.ISO_8859_1).endsWith(end)) {
            int n = in.read(buffer);
            if (n < 0) throw new AssertionError("closed after: " + seen.toString(StandardCharsets.ISO_8859_1));
            seen.write(buffer, 0, n);
        }
        return seen.toString(StandardCharsets.ISO_8859_1);
    }
}
