package io.llmperf4j.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

import java.util.List;

/** Complete JSON responses that are not generations (errors, the model list), and the head of a stream. */
final class OpenAiResponses {

    private OpenAiResponses() {
    }

    /**
     * An OpenAI-style error, e.g. {@code {"error":{"message":"The model `x` does not exist.",
     * "type":"invalid_request_error","param":"model","code":404}}}; code is the HTTP status, as vLLM sends.
     */
    static FullHttpResponse error(ByteBufAllocator alloc, HttpResponseStatus status, String message, String param) {
        ByteBuf body = ChunkEncoder.encode(alloc, 128 + message.length(), g -> {
            g.writeStartObject();
            g.writeObjectFieldStart("error");
            g.writeStringField("message", message);
            g.writeStringField("type", errorType(status));
            g.writeStringField("param", param);
            g.writeNumberField("code", status.code());
            g.writeEndObject();
            g.writeEndObject();
        });
        return json(status, body);
    }

    /** {@code GET /v1/models}: {"object":"list","data":[{"id":..,"object":"model","created":..,"owned_by":..}]}. */
    static FullHttpResponse models(ByteBufAllocator alloc, List<String> modelIds, long createdSeconds) {
        ByteBuf body = ChunkEncoder.encode(alloc, 64 + 96 * modelIds.size(), g -> {
            g.writeStartObject();
            g.writeStringField("object", "list");
            g.writeArrayFieldStart("data");
            for (String id : modelIds) {
                g.writeStartObject();
                g.writeStringField("id", id);
                g.writeStringField("object", "model");
                g.writeNumberField("created", createdSeconds);
                g.writeStringField("owned_by", "llmperf4j");
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        });
        return json(HttpResponseStatus.OK, body);
    }

    /** The head of an SSE stream: 200, text/event-stream, no-cache, chunked. */
    static HttpResponse streamHeaders() {
        HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8")
                .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        HttpUtil.setTransferEncodingChunked(response, true);
        return response;
    }

    static FullHttpResponse json(HttpResponseStatus status, ByteBuf body) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        HttpUtil.setContentLength(response, body.readableBytes());
        return response;
    }

    /** {@code GET /metrics}: Prometheus text with its content type. */
    static FullHttpResponse metrics(ByteBufAllocator alloc, String body, String contentType) {
        ByteBuf buf = alloc.buffer(body.length());
        buf.writeCharSequence(body, java.nio.charset.StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, buf);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        HttpUtil.setContentLength(response, buf.readableBytes());
        return response;
    }

    private static String errorType(HttpResponseStatus status) {
        switch (status.code()) {
            case 401: return "authentication_error";
            case 403: return "permission_error";
            case 429: return "rate_limit_error";
            default: return status.code() >= 500 ? "server_error" : "invalid_request_error";
        }
    }
}
