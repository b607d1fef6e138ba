package io.llmperf4j.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The warm-up's responder, driven by the real client and by a raw socket, over 127.0.0.1. */
class WarmupResponderTest {
    private static final String FIRST_FIVE_WORDS = " Shall I compare thee to";

    private static RequestRecord ask(WarmupResponder responder, String model, int tokens, boolean usage)
            throws Exception {
        try (NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(
                URI.create(responder.baseUrl() + "/chat/completions"), model).includeUsage(usage).build())) {
            return client.send(new RequestSpec(0, "a prompt\nwith \"lines\"", 0, tokens)).completion()
                    .get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void streamsTheAskedTokensThenUsageAndDone() throws Exception {
        try (WarmupResponder responder = WarmupResponder.start()) {
            RequestRecord record = ask(responder, "warmup", 5, true);
            assertTrue(record.succeeded(), record::toString);
            assertEquals(FIRST_FIVE_WORDS, record.generatedText());
            assertEquals(5, record.contentEventNanos().length);
            assertEquals(5, record.usageCompletionTokens());
        }
    }

    @Test
    void thePacedModelStreamsTheSameTokensOneAtATime() throws Exception {
        try (WarmupResponder responder = WarmupResponder.start()) {
            RequestRecord paced = ask(responder, WarmupResponder.PACED_MODEL, 64, false);
            RequestRecord unpaced = ask(responder, "warmup", 64, false);
            assertTrue(paced.succeeded(), paced::toString);
            assertEquals(unpaced.generatedText(), paced.generatedText());
            assertEquals(64, paced.contentEventNanos().length);
            assertTrue(paced.generatedText().contains("\n") && paced.generatedText().contains("\""),
                    "escaped line breaks and quotes arrive as text");
            assertNull(paced.usageCompletionTokens());
        }
    }

    @Test
    void aRequestSentByteByByteIsAnsweredAndTheConnectionKeptAlive() throws Exception {
        try (WarmupResponder responder = WarmupResponder.start()) {
            URI base = URI.create(responder.baseUrl());
            byte[] request = chatRequest(2, "CONTENT-LENGTH");
            try (Socket socket = new Socket(base.getHost(), base.getPort())) {
                socket.setSoTimeout(10_000);
                OutputStream out = socket.getOutputStream();
                InputStream in = socket.getInputStream();
                for (int round = 0; round < 2; round++) {
                    for (byte b : request) {
                        out.write(b);
                        out.flush();
                    }
                    String response = readUntil(in, "0\r\n\r\n");
                    assertTrue(response.startsWith("HTTP/1.1 200 OK\r\n"), response);
                    assertTrue(response.contains("\"delta\":{\"content\":\" Shall\"},\"logprobs\":null,"
                            + "\"finish_reason\":null"), response);
                    assertTrue(response.contains("\"delta\":{\"content\":\" I\"},\"logprobs\":null,"
                            + "\"finish_reason\":\"length\""), response);
                    assertTrue(response.contains("data: [DONE]\n\n"), response);
                    assertTrue(!response.contains("usage"), response);
                }
                out.write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                assertTrue(readUntil(in, "\r\n\r\n").startsWith("HTTP/1.1 404 "));
            }
        }
    }

    @Test
    void everyOtherPairOfUnpacedResponsesFramesSixteenEventsToAChunk() throws Exception {
        try (WarmupResponder responder = WarmupResponder.start()) {
            URI base = URI.create(responder.baseUrl());
            byte[] request = chatRequest(40, "Content-Length");
            try (Socket socket = new Socket(base.getHost(), base.getPort())) {
                socket.setSoTimeout(10_000);
                List<List<String>> chunksOfEachResponse = new ArrayList<>();
                for (int response = 0; response < 4; response++) {
                    socket.getOutputStream().write(request);
                    String whole = readUntil(socket.getInputStream(), "\r\n0\r\n\r\n");
                    // one char per byte: chunk sizes count bytes, and two words are not ASCII
                    String bytes = new String(whole.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
                    chunksOfEachResponse.add(httpChunks(bytes.substring(bytes.indexOf("\r\n\r\n") + 4)));
                }
                // a role event, 40 tokens and [DONE]: 42 events
                for (int response = 0; response < 2; response++) {
                    List<String> chunks = chunksOfEachResponse.get(response);
                    assertEquals(42, chunks.size());
                    chunks.forEach(chunk -> assertEquals(1, events(chunk), chunk));
                }
                for (int response = 2; response < 4; response++) {
                    List<String> chunks = chunksOfEachResponse.get(response);
                    assertEquals(List.of(16, 16, 10), chunks.stream().map(WarmupResponderTest::events).toList());
                    assertEquals(String.join("", chunksOfEachResponse.get(response - 2)), String.join("", chunks),
                            "the same events, framed otherwise");
                }
            }
            RequestRecord grouped = ask(responder, "warmup", 40, true); // the fifth response: one event a chunk
            assertEquals(40, grouped.contentEventNanos().length);
        }
    }

    /** A streamed chat request for the unpaced model, its length header named as given (any case is read). */
    private static byte[] chatRequest(int maxTokens, String contentLengthName) {
        String body = "{\"model\":\"warmup\",\"max_tokens\":" + maxTokens + ",\"stream\":true}";
        return ("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + contentLengthName + ": " + body.length() + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8);
    }

    /** The payloads of a chunked body (one char per byte), up to its last (empty) chunk. */
    private static List<String> httpChunks(String body) {
        List<String> chunks = new ArrayList<>();
        int at = 0;
        while (true) {
            int lineEnd = body.indexOf("\r\n", at);
            int size = Integer.parseInt(body.substring(at, lineEnd), 16);
            if (size == 0) return chunks;
            chunks.add(body.substring(lineEnd + 2, lineEnd + 2 + size));
            at = lineEnd + 2 + size + 2;
        }
    }

    private static int events(String chunk) {
        return chunk.split("data: ", -1).length - 1;
    }

    private static String readUntil(InputStream in, String end) throws Exception {
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        while (!seen.toString(StandardCharsets.UTF_8).endsWith(end)) {
            int b = in.read();
            if (b < 0) throw new AssertionError("closed after: " + seen.toString(StandardCharsets.UTF_8));
            seen.write(b);
        }
        return seen.toString(StandardCharsets.UTF_8);
    }
}
