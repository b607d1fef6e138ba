package io.llmperf4j.server;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;

/** The faults applied on arrival, before a request generates: HTTP-status errors and connection resets. */
final class FaultResponses {

    static final String RETRY_AFTER_SECONDS = "1";

    private FaultResponses() {
    }

    /** The error response of an {@code HTTP_*} kind, in the endpoint's dialect; 429 carries Retry-After: 1. */
    static FullHttpResponse statusFault(ByteBufAllocator alloc, Endpoint endpoint, FaultKind kind) {
        HttpResponseStatus status = HttpResponseStatus.valueOf(kind.httpStatus());
        String message = message(kind);
        FullHttpResponse response = endpoint.anthropic()
                ? AnthropicResponses.error(alloc, status, message)
                : OpenAiResponses.error(alloc, status, message, null);
        if (kind == FaultKind.HTTP_429) response.headers().set(HttpHeaderNames.RETRY_AFTER, RETRY_AFTER_SECONDS);
        return response;
    }

    /**
     * Closes the connection with SO_LINGER 0, so the peer gets a TCP RST instead of a FIN, once the bytes of earlier
     * responses on the connection have left (an empty buffer passes the HTTP encoder untouched).
     */
    static void reset(ChannelHandlerContext ctx) {
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(written -> {
            try {
                ctx.channel().config().setOption(ChannelOption.SO_LINGER, 0);
            } catch (RuntimeException unsupported) {
                // a transport without SO_LINGER: a plain close still ends the connection before any byte
            }
            ctx.close();
        });
    }

    static String message(FaultKind kind) {
        switch (kind) {
            case HTTP_400: return "Simulated fault: the request was rejected as invalid.";
            case HTTP_401: return "Simulated fault: invalid API key.";
            case HTTP_403: return "Simulated fault: access to this model is forbidden.";
            case HTTP_404: return "Simulated fault: the model was not found.";
            case HTTP_429: return "Simulated fault: rate limit reached, retry after 1 second.";
            case HTTP_500: return "Simulated fault: internal server error.";
            case HTTP_503: return "Simulated fault: the server is overloaded, try again later.";
            default: throw new IllegalArgumentException(kind + " is not an HTTP-status fault");
        }
    }
}
