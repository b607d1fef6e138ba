package io.llmperf4j.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How many SSE events per second one I/O thread of the simulator pushes when every event is due at once
 * (zero TTFT and inter-token delay). Not a test: run it with the {@code benchmarks} profile (see the pom).
 *
 * <p>The server gets one event-loop thread ({@code ioThreads = 1}); {@code connections} raw sockets each stream
 * one long response ({@code max_tokens} = 1,000,000, one token per event), read by a single NIO selector thread
 * that counts event terminators ({@code "\n\n"}, which chunked framing and headers never contain). Events are
 * counted over a measured window after a warm-up. Arguments, all optional, as {@code key=value}:
 * {@code connections} (16), {@code warmupSeconds} (3), {@code seconds} (10), {@code endpoint} (chat|text, chat),
 * {@code transport} (best|nio, best).
 */
public final class SseThroughputBenchmark {

    private SseThroughputBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int connections = 16;
        int warmupSeconds = 3;
        int seconds = 10;
        String endpoint = "chat";
        String transportName = "best";
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            if (kv.length != 2) throw new IllegalArgumentException("expected key=value, got " + arg);
            switch (kv[0]) {
                case "connections": connections = Integer.parseInt(kv[1]); break;
                case "warmupSeconds": warmupSeconds = Integer.parseInt(kv[1]); break;
                case "seconds": seconds = Integer.parseInt(kv[1]); break;
                case "endpoint": endpoint = kv[1]; break;
                case "transport": transportName = kv[1]; break;
                default: throw new IllegalArgumentException("unknown argument " + kv[0]);
            }
        }
        SimulatorConfig config = SimulatorConfig.builder()
                .ioThreads(1)
                .timeToFirstToken(Duration.ZERO)
                .interTokenDelay(Duration.ZERO)
                .maxConcurrentSequences(Math.max(1, connections))
                .build();
        Transport transport = transportName.equals("nio") ? Transport.NIO : Transport.best();
        try (SimulatedServer server = SimulatedServer.start(config, transport)) {
            String path = endpoint.equals("text") ? "/v1/completions" : "/v1/chat/completions";
            String body = endpoint.equals("text")
                    ? "{\"prompt\":\"benchmark\",\"stream\":true,\"max_tokens\":1000000}"
                    : "{\"messages\":[{\"role\":\"user\",\"content\":\"benchmark\"}],\"stream\":true,"
                    + "\"max_tokens\":1000000}";
            byte[] bodyBytes = body.getBytes(StandardCharsets.UTF_8);
            byte[] request = ("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + bodyBytes.length + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8);

            Selector selector = Selector.open();
            List<SocketChannel> sockets = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                SocketChannel socket = SocketChannel.open(new InetSocketAddress("127.0.0.1", server.port()));
                socket.setOption(StandardSocketOptions.SO_RCVBUF, 1 << 20);
                socket.write(ByteBuffer.wrap(request));
                socket.configureBlocking(false);
                socket.register(selector, SelectionKey.OP_READ, new boolean[1]);
                sockets.add(socket);
            }
            ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
            long startNanos = System.nanoTime();
            long warmupEndNanos = startNanos + Duration.ofSeconds(warmupSeconds).toNanos();
            long endNanos = warmupEndNanos + Duration.ofSeconds(seconds).toNanos();
            long events = 0;
            long bytes = 0;
            long measuredEvents = -1;
            long measuredBytes = 0;
            long windowStartNanos = 0;
            while (true) {
                long now = System.nanoTime();
                if (measuredEvents < 0 && now - warmupEndNanos >= 0) {
                    measuredEvents = events;
                    measuredBytes = bytes;
                    windowStartNanos = now;
                }
                if (now - endNanos >= 0) break;
                selector.select(100);
                for (SelectionKey key : selector.selectedKeys()) {
                    SocketChannel socket = (SocketChannel) key.channel();
                    boolean[] lastWasNewline = (boolean[]) key.attachment();
                    buffer.clear();
                    int read = socket.read(buffer);
                    if (read < 0) throw new IOException("the server closed a stream early");
                    bytes += read;
                    boolean previous = lastWasNewline[0];
                    for (int i = 0; i < read; i++) {
                        boolean newline = buffer.get(i) == '\n';
                        if (newline && previous) {
                            events++;
                            previous = false; // "\n\n\n" is not two terminators
                        } else {
                            previous = newline;
                        }
                    }
                    lastWasNewline[0] = previous;
                }
                selector.selectedKeys().clear();
            }
            long windowNanos = System.nanoTime() - windowStartNanos;
            long counted = events - measuredEvents;
            double perSecond = counted * 1e9 / windowNanos;
            double mbPerSecond = (bytes - measuredBytes) * 1e9 / windowNanos / 1e6;
            System.out.printf(Locale.ROOT, "transport=%s endpoint=%s connections=%d ioThreads=1: %.0f events/s "
                            + "(%.1f MB/s, %d events in %.2f s)%n", server.transportName(), endpoint, connections,
                    perSecond, mbPerSecond, counted, windowNanos / 1e9);
            for (SocketChannel socket : sockets) socket.close();
            selector.close();
        }
    }
}
