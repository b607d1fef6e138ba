package io.llmperf4j.server;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;

/** One concern per handler: HTTP/1.1 codec, keep-alive bookkeeping, whole-request aggregation, the API. */
final class SimulatorInitializer extends ChannelInitializer<SocketChannel> {

    private final ServerContext server;

    SimulatorInitializer(ServerContext server) {
        this.server = server;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ch.pipeline()
                .addLast("http", new HttpServerCodec())
                .addLast("keepAlive", new HttpServerKeepAliveHandler())
                // also answers "Expect: 100-continue" and sends 413 for oversized bodies
                .addLast("aggregator", new HttpObjectAggregator(server.config.maxRequestBodyBytes()))
                .addLast("openai", new OpenAiHandler(server));
    }
}
