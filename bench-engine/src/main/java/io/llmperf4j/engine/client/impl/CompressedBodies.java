package io.llmperf4j.engine.client.impl;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.compression.DecompressionException;
import io.netty.handler.codec.http.HttpContentDecompressor;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;

import java.util.Locale;
import java.util.Set;

/**
 * Decodes a gzip or deflate body, which a gateway may send even for an event stream (the client asks for identity).
 * Netty's {@link HttpContentDecompressor} is put into a connection's pipeline, between the HTTP decoder and the
 * {@link ConnectionHandler}, only when a response of that connection first needs it: in the pipeline of every
 * connection it would cost each chunk of every stream a handler and two reference-count updates. Decoding happens
 * inside the read that brought the bytes, so an event keeps its bytes' arrival stamp. Other codings are left alone:
 * the exchange names them. A body that is not in the coding it claims fails the decompressor; the decompressor keeps
 * the coding of the response it decodes, so that failure can name it ({@link #codingOf}).
 */
final class CompressedBodies {

    /** The codings the decompressor always has (br and zstd only with optional libraries, so never relied on). */
    private static final Set<String> DECODED = Set.of("gzip", "x-gzip", "deflate", "x-deflate");

    private CompressedBodies() {
    }

    /**
     * For a response head reaching the connection's last handler ({@code ctx}): when its body is gzip or deflate and
     * no decompressor decoded it (it would have removed the header), puts one before {@code ctx} and hands the head to
     * it, from the HTTP decoder's place; the head comes back to {@code ctx} decoded, and the body's chunks follow it
     * through the decompressor. The decompressor stays for the connection's later responses.
     *
     * @return true when the head was handed to a new decompressor (the caller drops this delivery of it)
     */
    static boolean decodeFromHere(ChannelHandlerContext ctx, HttpResponse head) {
        String encoding = head.headers().get(HttpHeaderNames.CONTENT_ENCODING);
        if (encoding == null || !DECODED.contains(encoding.strip().toLowerCase(Locale.ROOT))) return false;
        ChannelHandlerContext http = ctx.pipeline().context(HttpResponseDecoder.class);
        if (http == null || ctx.pipeline().get(HttpContentDecompressor.class) != null) return false;
        ctx.pipeline().addBefore(ctx.name(), "decompress", new NamingDecompressor());
        http.fireChannelRead(head);
        return true;
    }

    /** Whether {@code cause} is a body's decoding failure: its bytes are not in the coding its header named. */
    static boolean isDecodingFailure(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof DecompressionException) return true;
        }
        return false;
    }

    /** The Content-Encoding of the response {@code ch}'s decompressor is decoding, or null when none is. */
    static String codingOf(Channel ch) {
        NamingDecompressor decompressor = ch == null ? null : ch.pipeline().get(NamingDecompressor.class);
        return decompressor == null ? null : decompressor.coding;
    }

    /** Netty's decompressor, noting the coding of each response it decodes (null for one it passes through). */
    private static final class NamingDecompressor extends HttpContentDecompressor {
        private String coding;

        NamingDecompressor() {
            super(0);
        }

        @Override
        protected EmbeddedChannel newContentDecoder(String contentEncoding) throws Exception {
            EmbeddedChannel decoder = super.newContentDecoder(contentEncoding);
            coding = decoder == null ? null : contentEncoding;
            return decoder;
        }
    }
}
