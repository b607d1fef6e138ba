package io.llmperf4j.llama;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/**
 * Writes one generation to its connection as the engine reports it: SSE events for a stream, one JSON object
 * otherwise. Called on the engine's decoding thread; Netty hands each write to the connection's event loop.
 */
final class CompletionResponse implements LlamaEngine.Listener {
    private static final String FINISH_LENGTH = "length";

    private final Channel channel;
    private final OpenAiRequest request;
    private final String id;
    private final long createdSeconds;
    private final String model;
    private final StringBuilder fullText = new StringBuilder();
    private volatile boolean clientGone;

    CompletionResponse(Channel channel, OpenAiRequest request, String id, long createdSeconds, String model) {
        this.channel = channel;
        this.request = request;
        this.id = id;
        this.createdSeconds = createdSeconds;
        this.model = model;
    }

    void clientLeft() {
        clientGone = true;
    }

    boolean isClientGone() {
        return clientGone || !channel.isActive();
    }

    @Override
    public void onStart(int promptTokens) {
        if (!request.stream()) return;
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8");
        head.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        HttpUtil.setTransferEncodingChunked(head, true);
        channel.write(head);
        if (request.chat()) {
            ObjectNode chunk = chunk();
            choice(chunk).putObject("delta").put("role", "assistant").put("content", "");
            channel.write(new DefaultHttpContent(OpenAiJson.event(chunk)));
        }
        channel.flush();
    }

    @Override
    public void onText(String text) {
        if (!request.stream()) {
            fullText.append(text);
            return;
        }
        ObjectNode chunk = chunk();
        ObjectNode choice = choice(chunk);
        if (request.chat()) {
            choice.putObject("delta").put("content", text);
        } else {
            choice.put("text", text);
        }
        choice.putNull("logprobs");
        choice.putNull("finish_reason");
        channel.writeAndFlush(new DefaultHttpContent(OpenAiJson.event(chunk)));
    }

    @Override
    public void onEnd(int promptTokens, int completionTokens) {
        if (!request.stream()) {
            channel.writeAndFlush(OpenAiJson.response(HttpResponseStatus.OK, fullResponse(promptTokens, completionTokens)));
            return;
        }
        ObjectNode finish = chunk();
        ObjectNode choice = choice(finish);
        if (request.chat()) {
            choice.putObject("delta");
        } else {
            choice.put("text", "");
        }
        choice.putNull("logprobs");
        choice.put("finish_reason", FINISH_LENGTH);
        channel.write(new DefaultHttpContent(OpenAiJson.event(finish)));
        if (request.includeUsage()) {
            ObjectNode usage = chunk();
            usage.putArray("choices");
            OpenAiJson.putUsage(usage, promptTokens, completionTokens);
            channel.write(new DefaultHttpContent(OpenAiJson.event(usage)));
        }
        channel.write(new DefaultHttpContent(OpenAiJson.done()));
        channel.writeAndFlush(new DefaultLastHttpContent());
    }

    @Override
    public void onError(String message, boolean badRequest) {
        HttpResponseStatus status = badRequest ? HttpResponseStatus.BAD_REQUEST : HttpResponseStatus.INTERNAL_SERVER_ERROR;
        channel.writeAndFlush(OpenAiJson.error(status, message, null));
    }

    private ObjectNode fullResponse(int promptTokens, int completionTokens) {
        ObjectNode response = header(request.chat() ? "chat.completion" : "text_completion");
        ObjectNode choice = response.putArray("choices").addObject().put("index", 0);
        if (request.chat()) {
            choice.putObject("message").put("role", "assistant").put("content", fullText.toString());
        } else {
            choice.put("text", fullText.toString());
        }
        choice.putNull("logprobs");
        choice.put("finish_reason", FINISH_LENGTH);
        OpenAiJson.putUsage(response, promptTokens, completionTokens);
        return response;
    }

    private ObjectNode chunk() {
        return header(request.chat() ? "chat.completion.chunk" : "text_completion");
    }

    private static ObjectNode choice(ObjectNode chunk) {
        return chunk.putArray("choices").addObject().put("index", 0);
    }

    private ObjectNode header(String object) {
        return OpenAiJson.MAPPER.createObjectNode()
                .put("id", id)
                .put("object", object)
                .put("created", createdSeconds)
                .put("model", model);
    }
}
