package io.llmperf4j.llama;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/** JSON bodies and SSE events in OpenAI's (vLLM's) shapes. */
final class OpenAiJson {
    /** Characters outside the BMP (emoji) go out as raw UTF-8, as real servers send them, not as escapes. */
    static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .build();

    private OpenAiJson() {
    }

    /** {@code {"error":{"message":..,"type":..,"param":..,"code":<http status>}}}, as vLLM sends. */
    static FullHttpResponse error(HttpResponseStatus status, String message, String param) {
        ObjectNode body = MAPPER.createObjectNode();
        body.putObject("error")
                .put("message", message)
                .put("type", status.code() < 500 ? "invalid_request_error" : "server_error")
                .put("param", param)
                .put("code", status.code());
        return response(status, body);
    }

    static FullHttpResponse response(HttpResponseStatus status, ObjectNode body) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes(body)));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        HttpUtil.setContentLength(response, response.content().readableBytes());
        return response;
    }

    /** One SSE event: {@code data: {json}\n\n}. */
    static ByteBuf event(ObjectNode json) {
        byte[] body = bytes(json);
        ByteBuf buf = Unpooled.buffer(body.length + 8);
        buf.writeBytes(DATA);
        buf.writeBytes(body);
        buf.writeBytes(END);
        return buf;
    }

    static ByteBuf done() {
        return Unpooled.wrappedBuffer(DONE);
    }

    /** {@code usage} with total_tokens. */
    static void putUsage(ObjectNode parent, int promptTokens, int completionTokens) {
        parent.putObject("usage")
                .put("prompt_tokens", promptTokens)
                .put("completion_tokens", completionTokens)
                .put("total_tokens", promptTokens + completionTokens);
    }

    private static byte[] bytes(ObjectNode json) {
        try {
            return MAPPER.writeValueAsBytes(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e);
        }
    }

    private static final byte[] DATA = "data: ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] END = "\n\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] DONE = "data: [DONE]\n\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
}
