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
            byte[] body = "{\"model\":\"warmup\",\"max_tokens\":2,\"stream\":true}".getBytes(StandardCharsets.UTF_8);
            byte[] request = ("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "CONTENT-LENGTH: " + body.length + "\r\n\r\n" + new String(body, StandardCharsets.UTF_8))
                    .getBytes(StandardCharsets.UTF_8);
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
