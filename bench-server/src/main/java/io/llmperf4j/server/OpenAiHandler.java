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
import io.llmperf4j.servermetrics.vllm.VllmMetricsExposition;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static io.llmperf4j.server.InvalidRequestException.badRequest;

/**
 * Routes one connection's requests: authentication, the endpoints, fault decisions, errors. Generation itself is
 * {@link Generation}'s job (the simulator), or a real {@link GenerationEngine}'s through {@link EngineResponse}.
 * A connection serves one request at a time; pipelined requests wait here in order, so responses never interleave.
 */
final class OpenAiHandler extends ChannelInboundHandlerAdapter {

    private static final InternalLogger LOG = InternalLoggerFactory.getInstance(OpenAiHandler.class);

    static final String MODELS_PATH = "/v1/models";
    static final String EMBEDDINGS_PATH = "/v1/embeddings";
    static final String HEALTH_PATH = "/health";
    private static final byte[] HEALTH_BODY = "{\"status\":\"ok\"}".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /** Prometheus metrics, vLLM-named, unauthenticated as vLLM serves them; only the simulator counts them. */
    static final String METRICS_PATH = "/metrics";
    static final String ANTHROPIC_KEY_HEADER = "x-api-key";

    private final ServerContext server;
    private final byte[] expectedAuthorization;
    private final byte[] expectedApiKey;
    /** Requests that arrived while an earlier one on this connection was still being answered. */
    private final ArrayDeque<FullHttpRequest> pipelined = new ArrayDeque<>();
    /** True from accepting a generation or embeddings request until its response ended. */
    private boolean busy;
    private ActiveResponse active;

    OpenAiHandler(ServerContext server) {
        this.server = server;
        String apiKey = server.config.apiKey();
        this.expectedAuthorization = apiKey == null ? null : ("Bearer " + apiKey).getBytes(StandardCharsets.UTF_8);
        this.expectedApiKey = apiKey == null ? null : apiKey.getBytes(StandardCharsets.UTF_8);
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
            sendError(ctx, null, HttpResponseStatus.BAD_REQUEST, "Malformed HTTP request.", null)
                    .addListener(ChannelFutureListener.CLOSE);
            return;
        }
        String path = new QueryStringDecoder(request.uri()).path();
        HttpMethod method = request.method();
        if (HEALTH_PATH.equals(path) && HttpMethod.GET.equals(method)) {
            // a JSON content type promises a JSON body: an empty one fails a client that parses it
            ctx.writeAndFlush(OpenAiResponses.json(HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer(HEALTH_BODY)));
            return;
        }
        if (METRICS_PATH.equals(path) && HttpMethod.GET.equals(method) && server.engine == null) {
            ctx.writeAndFlush(OpenAiResponses.metrics(ctx.alloc(), server.metrics.render(),
                    VllmMetricsExposition.CONTENT_TYPE));
            return;
        }
        if (Endpoint.MESSAGES.path.equals(path)) {
            handleMessages(ctx, request, method, arrivalNanos);
            return;
        }
        // the model list answers Anthropic clients too (GET /v1/models with x-api-key, as Anthropic's API does)
        boolean authorized = MODELS_PATH.equals(path) ? anthropicAuthorized(request) : authorized(request);
        if (path.startsWith("/v1/") && !authorized) {
            String message = request.headers().contains(HttpHeaderNames.AUTHORIZATION)
                    ? "Incorrect API key provided."
                    : "You didn't provide an API key. Send it as an Authorization: Bearer header.";
            sendError(ctx, null, HttpResponseStatus.UNAUTHORIZED, message, null);
            return;
        }
        if (MODELS_PATH.equals(path) && HttpMethod.GET.equals(method)) {
            ctx.writeAndFlush(OpenAiResponses.models(ctx.alloc(), server.config.modelIds(), server.startedEpochSeconds));
        } else if (Endpoint.CHAT.path.equals(path) && HttpMethod.POST.equals(method)) {
            acceptGeneration(ctx, Endpoint.CHAT, request, arrivalNanos);
        } else if (Endpoint.TEXT.path.equals(path) && HttpMethod.POST.equals(method)) {
            acceptGeneration(ctx, Endpoint.TEXT, request, arrivalNanos);
        } else if (EMBEDDINGS_PATH.equals(path) && HttpMethod.POST.equals(method) && server.engine == null) {
            acceptEmbeddings(ctx, request, arrivalNanos);
        } else {
            sendError(ctx, null, HttpResponseStatus.NOT_FOUND, "Invalid URL (" + method + " " + path + ").", null);
        }
    }

    /** {@code /v1/messages}: Anthropic's authentication ({@code x-api-key}) and error shape. */
    private void handleMessages(ChannelHandlerContext ctx, FullHttpRequest request, HttpMethod method,
                                long arrivalNanos) {
        if (!anthropicAuthorized(request)) {
            String message = request.headers().contains(ANTHROPIC_KEY_HEADER) ? "invalid x-api-key"
                    : "x-api-key header is required";
            sendError(ctx, Endpoint.MESSAGES, HttpResponseStatus.UNAUTHORIZED, message, null);
        } else if (!HttpMethod.POST.equals(method)) {
            sendError(ctx, Endpoint.MESSAGES, HttpResponseStatus.NOT_FOUND,
                    "Invalid URL (" + method + " " + Endpoint.MESSAGES.path + ").", null);
        } else {
            acceptGeneration(ctx, Endpoint.MESSAGES, request, arrivalNanos);
        }
    }

    private void acceptGeneration(ChannelHandlerContext ctx, Endpoint endpoint, FullHttpRequest http,
                                  long arrivalNanos) {
        long requestHash = server.faultsNeedRequestHash() ? Hashing.fnv(endpoint.path, http.content()) : 0;
        CompletionRequest request;
        String model;
        FaultKind forced;
        try {
            ByteBufInputStream body = new ByteBufInputStream(http.content());
            request = endpoint.anthropic() ? server.anthropicParser.parse(body) : server.parser.parse(endpoint, body);
            model = resolveModel(request.model());
            forced = server.engine == null ? forcedFault(http, request.stream()) : null;
        } catch (InvalidRequestException e) {
            sendError(ctx, endpoint, e.status, e.getMessage(), e.param);
            return;
        }
        if (server.engine != null) {
            startEngineGeneration(ctx, request, model);
            return;
        }
        FaultKind fault = server.faults.decide(forced, request.stream(), requestHash);
        if (fault.isHttpStatus()) {
            ctx.writeAndFlush(FaultResponses.statusFault(ctx.alloc(), endpoint, fault));
            return;
        }
        if (fault == FaultKind.RESET) {
            FaultResponses.reset(ctx);
            return;
        }
        busy = true;
        TokenCounter counter = server.config.promptTokenCounter();
        int blockTokens = server.prefixCacheEnabled() ? server.config.prefixBlockTokens() : 0;
        if (request.promptIsTokenIds()) {
            startGeneration(ctx, request, model, PromptBlocks.uncached(request.promptTokenIds()), arrivalNanos, fault);
        } else if (counter == null) {
            startGeneration(ctx, request, model, PromptBlocks.estimate(request.promptText(), blockTokens),
                    arrivalNanos, fault);
        } else {
            // a real tokenizer costs a millisecond or two per prompt: it runs inside the TTFT (timed from arrival)
            countOffLoop(ctx, () -> promptBlocks(counter, request.promptText(), blockTokens), blocks -> {
                if (blocks != null) {
                    startGeneration(ctx, request, model, blocks, arrivalNanos, fault);
                } else {
                    counterFailed(ctx, endpoint);
                }
            });
        }
    }

    /** The {@value FaultKind#HEADER} header's kind, or null when absent. */
    private static FaultKind forcedFault(FullHttpRequest http, boolean stream) throws InvalidRequestException {
        String value = http.headers().get(FaultKind.HEADER);
        if (value == null) return null;
        FaultKind kind;
        try {
            kind = FaultKind.fromHeaderValue(value);
        } catch (IllegalArgumentException e) {
            throw badRequest(e.getMessage(), null);
        }
        if (!stream && !kind.appliesToNonStreaming()) {
            throw badRequest(FaultKind.HEADER + " (" + kind + ") applies only to streaming requests.", null);
        }
        return kind;
    }

    /** The prompt's count and cacheable blocks by a real counter (its token ends when the cache is on). */
    private static PromptBlocks promptBlocks(TokenCounter counter, String text, int blockTokens) {
        int[] ends = blockTokens > 0 ? counter.tokenEnds(text) : null;
        if (ends != null) return PromptBlocks.fromTokenEnds(text, ends, blockTokens);
        int count = counter.count(text);
        return count < 0 ? null : PromptBlocks.uncached(count);
    }

    private void startGeneration(ChannelHandlerContext ctx, CompletionRequest request, String model,
                                 PromptBlocks prompt, long arrivalNanos, FaultKind fault) {
        String requestId = server.nextRequestId(request.endpoint());
        Generation generation = new Generation(ctx, server, request, requestId, model, prompt, arrivalNanos,
                fault, () -> responseEnded(ctx));
        active = generation;
        generation.start();
    }

    /** A real engine generates: no faults, no sequence slots (the engine queues), the engine counts the prompt. */
    private void startEngineGeneration(ChannelHandlerContext ctx, CompletionRequest request, String model) {
        EngineResponse response = new EngineResponse(ctx, request, server.nextRequestId(request.endpoint()), model,
                () -> responseEnded(ctx));
        busy = true;
        active = response;
        try {
            server.engine.generate(request.toGenerationRequest(), response);
        } catch (RuntimeException e) {
            LOG.warn("the generation engine failed to accept a request", e);
            response.fail("The engine failed: " + e.getMessage(), false);
        }
    }

    private void acceptEmbeddings(ChannelHandlerContext ctx, FullHttpRequest http, long arrivalNanos) {
        long requestHash = server.faultsNeedRequestHash() ? Hashing.fnv(EMBEDDINGS_PATH, http.content()) : 0;
        EmbeddingsRequest request;
        String model;
        FaultKind forced;
        try {
            request = server.embeddingsParser.parse(new ByteBufInputStream(http.content()));
            model = resolveModel(request.model());
            forced = forcedFault(http, false);
        } catch (InvalidRequestException e) {
            sendError(ctx, null, e.status, e.getMessage(), e.param);
            return;
        }
        FaultKind fault = server.faults.decide(forced, FaultKind::appliesToEmbeddings, requestHash);
        if (fault.isHttpStatus()) {
            ctx.writeAndFlush(FaultResponses.statusFault(ctx.alloc(), Endpoint.CHAT, fault)); // OpenAI's dialect
            return;
        }
        if (fault == FaultKind.RESET) {
            FaultResponses.reset(ctx);
            return;
        }
        busy = true;
        TokenCounter counter = server.config.promptTokenCounter();
        if (counter == null || request.allTokenIds()) {
            respondEmbeddings(ctx, request, model, request.inputTokens(PromptTokens::estimate), arrivalNanos, fault);
        } else {
            countOffLoop(ctx, () -> request.inputTokens(counter::count), inputTokens -> {
                if (inputTokens != null && inputTokens >= 0) {
                    respondEmbeddings(ctx, request, model, inputTokens, arrivalNanos, fault);
                } else {
                    counterFailed(ctx, null);
                }
            });
        }
    }

    /**
     * Sent {@code baseLatency + perInputTokenLatency * inputTokens} after arrival (a stall later with
     * {@link FaultKind#STALL}), by an event-loop timer; the non-streaming faults change what is sent.
     */
    private void respondEmbeddings(ChannelHandlerContext ctx, EmbeddingsRequest request, String model,
                                   int inputTokens, long arrivalNanos, FaultKind fault) {
        EmbeddingsConfig config = server.config.embeddings();
        long perTokenNanos = config.perInputTokenLatency().toNanos();
        long maxNanos = SimulatorConfig.MAX_DELAY.toNanos();
        long tokensNanos = perTokenNanos == 0 ? 0
                : inputTokens > maxNanos / perTokenNanos ? maxNanos : perTokenNanos * inputTokens;
        long latencyNanos = config.baseLatency().toNanos() + tokensNanos
                + (fault == FaultKind.STALL ? server.config.faultPlan().stallDuration().toNanos() : 0);
        Runnable send = () -> {
            if (!ctx.channel().isActive()) return;
            switch (fault) {
                case DROP_MID_STREAM -> {
                    // closed without a byte when the response would have been sent
                    ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
                    return;
                }
                case ERROR_EVENT -> ctx.writeAndFlush(EmbeddingsResponse.errorObject(ctx.alloc()));
                case MALFORMED_EVENT -> ctx.writeAndFlush(EmbeddingsResponse.cutInHalf(ctx.alloc(), request, model,
                        inputTokens));
                default -> ctx.writeAndFlush(EmbeddingsResponse.encode(ctx.alloc(), request, model, inputTokens));
            }
            responseEnded(ctx);
        };
        long waitNanos = arrivalNanos + latencyNanos - System.nanoTime();
        if (waitNanos <= 0) {
            send.run();
        } else {
            ctx.executor().schedule(send, waitNanos, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Runs {@code count} on the counting thread (a tokenizer must not stall the event loop), then {@code then}
     * with its result, or null when it threw, back on this connection's event loop if the client is still there.
     */
    private <T> void countOffLoop(ChannelHandlerContext ctx, Supplier<T> count, Consumer<T> then) {
        try {
            server.promptCountExecutor.execute(() -> {
                T result;
                try {
                    result = count.get();
                } catch (RuntimeException e) {
                    result = null;
                }
                T counted = result;
                try {
                    ctx.executor().execute(() -> {
                        if (ctx.channel().isActive()) then.accept(counted); // else the client left while we counted
                    });
                } catch (RejectedExecutionException shuttingDown) {
                    // the event loop is gone, and with it the connection
                }
            });
        } catch (RejectedExecutionException shuttingDown) {
            ctx.close();
        }
    }

    private void counterFailed(ChannelHandlerContext ctx, Endpoint endpoint) {
        sendError(ctx, endpoint, HttpResponseStatus.INTERNAL_SERVER_ERROR, "The prompt token counter failed.", null);
        responseEnded(ctx);
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

    /** Anthropic clients send {@code x-api-key}; a Bearer token (as gateways send) is accepted too. */
    private boolean anthropicAuthorized(FullHttpRequest request) {
        if (expectedApiKey == null) return true;
        String key = request.headers().get(ANTHROPIC_KEY_HEADER);
        if (key != null) return MessageDigest.isEqual(expectedApiKey, key.getBytes(StandardCharsets.UTF_8));
        return authorized(request);
    }

    /** An error in the endpoint's dialect: Anthropic's for {@code /v1/messages}, OpenAI's otherwise (null). */
    private static ChannelFuture sendError(ChannelHandlerContext ctx, Endpoint endpoint, HttpResponseStatus status,
                                           String message, String param) {
        FullHttpResponse response = endpoint != null ? endpoint.error(ctx.alloc(), status, message, param)
                : OpenAiResponses.error(ctx.alloc(), status, message, param);
        return ctx.writeAndFlush(response);
    }
}
