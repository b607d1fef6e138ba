package io.llmperf4j.llama;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBufInputStream;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;

import java.io.IOException;

/**
 * Routes one connection's requests to the endpoints. A connection serves one generation at a time: HTTP/1.1
 * clients wait for a response before sending the next request.
 */
final class OpenAiHandler extends ChannelInboundHandlerAdapter {
    static final String CHAT_PATH = "/v1/chat/completions";
    static final String COMPLETIONS_PATH = "/v1/completions";
    static final String MODELS_PATH = "/v1/models";
    static final String HEALTH_PATH = "/health";

    private final OpenAiEndpoints endpoints;
    private CompletionResponse active;

    OpenAiHandler(OpenAiEndpoints endpoints) {
        this.endpoints = endpoints;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest request)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        try {
            handle(ctx, request);
        } finally {
            request.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (active != null) active.clientLeft();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close(); // resets and broken pipes are how clients leave
    }

    private void handle(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (!request.decoderResult().isSuccess()) {
            ctx.writeAndFlush(OpenAiJson.error(HttpResponseStatus.BAD_REQUEST, "Malformed HTTP request.", null))
                    .addListener(ChannelFutureListener.CLOSE);
            return;
        }
        String path = new QueryStringDecoder(request.uri()).path();
        boolean get = HttpMethod.GET.equals(request.method());
        if (get && HEALTH_PATH.equals(path)) {
            ctx.writeAndFlush(OpenAiJson.response(HttpResponseStatus.OK, OpenAiJson.MAPPER.createObjectNode()));
        } else if (get && MODELS_PATH.equals(path)) {
            ctx.writeAndFlush(OpenAiJson.response(HttpResponseStatus.OK, models()));
        } else if (HttpMethod.POST.equals(request.method()) && (CHAT_PATH.equals(path) || COMPLETIONS_PATH.equals(path))) {
            generate(ctx, request, CHAT_PATH.equals(path));
        } else {
            ctx.writeAndFlush(OpenAiJson.error(HttpResponseStatus.NOT_FOUND,
                    "No route for " + request.method() + " " + path + ".", null));
        }
    }

    private void generate(ChannelHandlerContext ctx, FullHttpRequest request, boolean chat) {
        OpenAiRequest parsed;
        try {
            JsonNode root = OpenAiJson.MAPPER.readTree(new ByteBufInputStream(request.content()));
            if (root == null) throw new OpenAiRequest.BadRequestException("The request body is empty.", null);
            parsed = OpenAiRequest.parse(chat, root);
        } catch (IOException e) {
            ctx.writeAndFlush(OpenAiJson.error(HttpResponseStatus.BAD_REQUEST, "The request body is not valid JSON.", null));
            return;
        } catch (OpenAiRequest.BadRequestException e) {
            ctx.writeAndFlush(OpenAiJson.error(HttpResponseStatus.BAD_REQUEST, e.getMessage(), e.param));
            return;
        }
        String model = parsed.model() == null ? endpoints.modelId : parsed.model();
        active = new CompletionResponse(ctx.channel(), parsed, endpoints.nextResponseId(chat), endpoints.createdSeconds,
                model);
        endpoints.engine.submit(parsed.generation(), active, active::isClientGone);
    }

    private ObjectNode models() {
        ObjectNode list = OpenAiJson.MAPPER.createObjectNode().put("object", "list");
        list.putArray("data").addObject()
                .put("id", endpoints.modelId)
                .put("object", "model")
                .put("created", endpoints.createdSeconds)
                .put("owned_by", "llmperf4j");
        return list;
    }
}
