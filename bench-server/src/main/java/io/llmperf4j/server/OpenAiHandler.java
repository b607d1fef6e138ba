package io.llmperf4j.server;

import io.llmperf4j.model.TokenCounter;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;

/**
 * Routes one connection's requests: authentication, the three OpenAI endpoints, errors. Generation itself is
 * {@link Generation}'s job. A connection serves one request at a time; pipelined requests wait here in order,
 * so responses never interleave.
 */
final class OpenAiHandler extends ChannelInboundHandlerAdapter {

    private static final InternalLogger LOG = InternalLoggerFactory.getInstance(OpenAiHandler.class);

    static final String MODELS_PATH = "/v1/models";
    static final String HEALTH_PATH = "/health";

    private final ServerContext server;
    private final byte[] expectedAuthorization;
    /** Requests that arrived while an earlier one on this connection was still being answered. */
    private final ArrayDeque<FullHttpRequest> pipelined = new ArrayDeque<>();
    /** True from accepting a completion request until its response ended. */
    private boolean busy;
    private Generation active;

    OpenAiHandler(ServerContext server) {
        this.server = server;
        String apiKey = server.config.apiKey();
        this.expectedAuthorization = apiKey == null ? null : ("Bearer " + apiKey).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        FullHttpRequest request = (FullHttpRequest) msg;
        if (busy) {
            pipelined.addLast(request);
            return;
        }
        try {
            handle(ctx, request, System.nanoTime());
        } finally {
            request.release();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (active != null) active.onWritable();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (active != null) active.abort();
        active = null;
        busy = false;
        pipelined.forEach(FullHttpRequest::release);
        pipelined.clear();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // resets and broken pipes are how clients leave; anything else is a bug worth a log line
        if (!(cause instanceof IOException)) LOG.warn("closing {} after an unexpected error", ctx.channel(), cause);
        ctx.close(); // channelInactive then frees the slot
    }

    private void handle(ChannelHandlerContext ctx, FullHttpRequest request, long arrivalNanos) {
        if (!request.decoderResult().isSuccess()) {
            sendError(ctx, HttpResponseStatus.BAD_REQUEST, "Malformed HTTP request.", null)
                    .addListener(ChannelFutureListener.CLOSE);
            return;
        }
        String path = new QueryStringDecoder(request.uri()).path();
        HttpMethod method = request.method();
        if (HEALTH_PATH.equals(path) && HttpMethod.GET.equals(method)) {
            ctx.writeAndFlush(OpenAiResponses.json(HttpResponseStatus.OK, Unpooled.EMPTY_BUFFER));
            return;
        }
        if (path.startsWith("/v1/") && !authorized(request)) {
            String message = request.headers().contains(HttpHeaderNames.AUTHORIZATION)
                    ? "Incorrect API key provided."
                    : "You didn't provide an API key. Send it as an Authorization: Bearer header.";
            sendError(ctx, HttpResponseStatus.UNAUTHORIZED, message, null);
            return;
        }
        if (MODELS_PATH.equals(path) && HttpMethod.GET.equals(method)) {
            ctx.writeAndFlush(OpenAiResponses.models(ctx.alloc(), server.config.modelIds(), server.startedEpochSeconds));
        } else if (Endpoint.CHAT.path.equals(path) && HttpMethod.POST.equals(method)) {
            acceptCompletion(ctx, Endpoint.CHAT, request, arrivalNanos);
        } else if (Endpoint.TEXT.path.equals(path) && HttpMethod.POST.equals(method)) {
            acceptCompletion(ctx, Endpoint.TEXT, request, arrivalNanos);
        } else {
            sendError(ctx, HttpResponseStatus.NOT_FOUND, "Invalid URL (" + method + " " + path + ").", null);
        }
    }

    private void acceptCompletion(ChannelHandlerContext ctx, Endpoint endpoint, FullHttpRequest http,
                                  long arrivalNanos) {
        CompletionRequest request;
        String model;
        try {
            request = server.parser.parse(endpoint, new ByteBufInputStream(http.content()));
            model = resolveModel(request.model());
        } catch (InvalidRequestException e) {
            sendError(ctx, e.status, e.getMessage(), e.param);
            return;
        }
        busy = true;
        TokenCounter counter = server.config.promptTokenCounter();
        if (request.promptIsTokenIds()) {
            startGeneration(ctx, request, model, request.promptTokenIds(), arrivalNanos);
        } else if (counter == null) {
            startGeneration(ctx, request, model, PromptTokens.estimate(request.promptText()), arrivalNanos);
        } else {
            countThenStart(ctx, counter, request, model, arrivalNanos);
        }
    }

    /**
     * A real tokenizer costs about a millisecond per prompt: run it off the I/O thread so it never delays other
     * streams' chunks. Like a real server's tokenization, its time counts into this request's TTFT.
     */
    private void countThenStart(ChannelHandlerContext ctx, TokenCounter counter, CompletionRequest request,
                                String model, long arrivalNanos) {
        try {
            server.promptCountExecutor.execute(() -> {
                int promptTokens;
                try {
                    promptTokens = counter.count(request.promptText());
                } catch (RuntimeException e) {
                    promptTokens = -1;
                }
                int counted = promptTokens;
                try {
                    ctx.executor().execute(() -> afterCount(ctx, request, model, counted, arrivalNanos));
                } catch (RejectedExecutionException shuttingDown) {
                    // the event loop is gone, and with it the connection
                }
            });
        } catch (RejectedExecutionException shuttingDown) {
            ctx.close();
        }
    }

    private void afterCount(ChannelHandlerContext ctx, CompletionRequest request, String model, int promptTokens,
                            long arrivalNanos) {
        if (!ctx.channel().isActive()) return; // the client left while we counted
        if (promptTokens < 0) {
            sendError(ctx, HttpResponseStatus.INTERNAL_SERVER_ERROR, "The prompt token counter failed.", null);
            responseEnded(ctx);
            return;
        }
        startGeneration(ctx, request, model, promptTokens, arrivalNanos);
    }

    private void startGeneration(ChannelHandlerContext ctx, CompletionRequest request, String model,
                                 int promptTokens, long arrivalNanos) {
        String requestId = server.nextRequestId(request.endpoint());
        active = new Generation(ctx, server, request, requestId, model, promptTokens, arrivalNanos,
                () -> responseEnded(ctx));
        active.start();
    }

    /** The current response is done: serve the next pipelined request, if any. */
    private void responseEnded(ChannelHandlerContext ctx) {
        active = null;
        busy = false;
        while (!busy && ctx.channel().isActive() && !pipelined.isEmpty()) {
            FullHttpRequest next = pipelined.pollFirst();
            try {
                handle(ctx, next, System.nanoTime());
            } finally {
                next.release();
            }
        }
    }

    /** The requested model, or the first served id when the request named none. */
    private String resolveModel(String requested) throws InvalidRequestException {
        if (requested == null) return server.config.modelIds().get(0);
        if (server.config.acceptAnyModel() || server.config.modelIds().contains(requested)) return requested;
        throw new InvalidRequestException(HttpResponseStatus.NOT_FOUND,
                "The model `" + requested + "` does not exist.", "model");
    }

    /** Constant-time comparison, so response timing does not leak how much of a guessed key was right. */
    private boolean authorized(FullHttpRequest request) {
        if (expectedAuthorization == null) return true;
        String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
        return header != null
                && MessageDigest.isEqual(expectedAuthorization, header.getBytes(StandardCharsets.UTF_8));
    }

    private static ChannelFuture sendError(ChannelHandlerContext ctx, HttpResponseStatus status, String message,
                                           String param) {
        FullHttpResponse response = OpenAiResponses.error(ctx.alloc(), status, message, param);
        return ctx.writeAndFlush(response);
    }
}
