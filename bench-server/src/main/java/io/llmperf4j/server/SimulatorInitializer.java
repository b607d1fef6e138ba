package io.llmperf4j.server;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;

/**
 * One concern per handler: HTTP/1.1 codec, keep-alive bookkeeping, whole-request aggregation, the API. Each
 * connection joins the server's group of open connections first, which closes it at once when the server is closing.
 */
final class SimulatorInitializer extends ChannelInitializer<SocketChannel> {

    private final ServerContext server;
    private final ChannelGroup connections;

    SimulatorInitializer(ServerContext server, ChannelGroup connections) {
        this.server = server;
        this.connections = connections;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        connections.add(ch); // a group closed before this registration closes the connection here
        ch.pipeline()
                .addLast("http", new HttpServerCodec())
                .addLast("keepAlive", new HttpServerKeepAliveHandler())
                // also answers "Expect: 100-continue" and sends 413 for oversized bodies
                .addLast("aggregator", new HttpObjectAggregator(server.config.maxRequestBodyBytes()))
                .addLast("openai", new OpenAiHandler(server));
    }
}
