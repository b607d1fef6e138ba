package io.llmperf4j.engine.client.impl;

import io.llmperf4j.engine.client.OpenAiChatApi;
import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.engine.testserver.Streams;
import io.llmperf4j.model.RequestPhases;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpResponseDecoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The request-written stamp is when the kernel had the request, not when the writing thread got the CPU back. On
 * loopback the scheduler often runs the server the write woke on the writer's core, so the server reads and handles
 * the request before the writer's system call returns (the 1-stream "written → the server had it" of -0.3 ms in
 * BENCHMARKS.md). Here the client's event loop is held off the CPU right after its write reached the socket, until a
 * server on a real loopback socket has read the whole request and stamped its receipt, both on this JVM's
 * {@link System#nanoTime()}: the written stamp must not come after that receipt. Orders only, no thresholds.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WrittenStampSocketTest {

    private static final String PATH = "/v1/chat/completions";

    @Test
    void theWrittenStampPrecedesTheServersReceiptWhenTheWriterWasOffTheCpu() throws Exception {
        CountDownLatch flushed = new CountDownLatch(1);
        CountDownLatch received = new CountDownLatch(1);
        AtomicLong receivedNanos = new AtomicLong();
        AtomicLong writerBackNanos = new AtomicLong();
        AtomicReference<Throwable> serverFailure = new AtomicReference<>();
        Transport transport = Transport.create(1, true);
        ExecutorService workers = Executors.newSingleThreadExecutor();
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String host = "127.0.0.1:" + listener.getLocalPort();
            Thread server = new Thread(() -> {
                try (Socket s = listener.accept()) {
                    flushed.await(); // the client's write is in the kernel: its bytes wait in this socket
                    // the server sleeps on: whatever CPU the writer's write and return take, this receipt comes later
                    Thread.sleep(100);
                    readWholeRequest(s.getInputStream());
                    receivedNanos.set(System.nanoTime());
                    received.countDown();
                    answer(s.getOutputStream());
                } catch (Throwable t) {
                    serverFailure.set(t);
                    received.countDown();
                }
            }, "written-stamp-server");
            server.setDaemon(true);
            server.start();

            Channel ch = new Bootstrap().group(transport.group()).channel(transport.channelClass())
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel c) {
                            ArrivalClock clock = new ArrivalClock();
                            c.pipeline().addLast(new OffTheCpuAfterFlush(flushed, received, writerBackNanos),
                                    clock, new HttpResponseDecoder(), new ConnectionHandler(clock));
                        }
                    })
                    .connect("127.0.0.1", listener.getLocalPort()).sync().channel();
            ConnectionSource source = new ConnectionSource() {
                @Override
                public void acquire(Exchange exchange) {
                    ch.eventLoop().execute(() -> exchange.attach(ch, false));
                }

                @Override
                public void release(Channel c, boolean reusable) {
                    c.close();
                }
            };
            ExchangeContext context = new ExchangeContext(source, workers, transport.group(), new OpenAiChatApi(true),
                    new Redactor(Secret.none(), Map.of()), TimeUnit.SECONDS.toNanos(30), 0, 1024 * 1024, host,
                    URI.create("http://" + host + PATH));
            RequestBytes bytes = new RequestBytes(PATH, new DefaultHttpHeaders().set("Host", host),
                    ByteBufAllocator.DEFAULT);
            Exchange exchange = new Exchange(context, new RequestSpec(0, "hi", 1, 8), "req-1",
                    bytes.encode("req-1", "{\"stream\":true}".getBytes(StandardCharsets.UTF_8)));
            long startNanos = System.nanoTime();
            exchange.start(startNanos, 0);
            RequestRecord record = exchange.completion().get(30, TimeUnit.SECONDS);
            server.join(TimeUnit.SECONDS.toMillis(30));

            assertNull(serverFailure.get(), () -> "the test server: " + serverFailure.get());
            assertNull(record.failure(), () -> "the request failed: " + record.failure());
            assertTrue(writerBackNanos.get() - receivedNanos.get() >= 0,
                    "the writer's event loop was off the CPU until the server had read the request");
            RequestPhases p = record.phases();
            assertTrue(p.requestWrittenNanos() >= 0, () -> "the write was stamped: " + p);
            long writtenNanos = startNanos + p.requestWrittenNanos();
            assertTrue(writtenNanos - receivedNanos.get() <= 0, () -> "request written "
                    + (writtenNanos - receivedNanos.get()) + " ns after the server had it: the stamp waited for "
                    + "the writer's thread to get the CPU back (" + p + ")");
            long[] chain = {0, p.connectionReadyNanos(), p.requestWrittenNanos(), p.responseHeadersNanos(),
                    record.ttftNanos(), record.e2eNanos()};
            for (int i = 1; i < chain.length; i++) {
                int step = i;
                assertTrue(chain[i] >= chain[i - 1], () -> "phase " + step + " before the one before it: " + p
                        + " ttft " + record.ttftNanos() + " e2e " + record.e2eNanos());
            }
            assertEquals("Hello world!", record.generatedText(), "the answer was read whole");
        } finally {
            transport.shutdown(5_000);
            workers.shutdownNow();
        }
    }

    /**
     * Stands in for the writer taken off the CPU as its write returns: once the flush has put the request in the
     * socket, the event loop waits (parked, so its thread spends no CPU) until the server has read the request.
     */
    private static final class OffTheCpuAfterFlush extends ChannelOutboundHandlerAdapter {
        private final CountDownLatch flushed;
        private final CountDownLatch received;
        private final AtomicLong backNanos;
        private boolean done;

        OffTheCpuAfterFlush(CountDownLatch flushed, CountDownLatch received, AtomicLong backNanos) {
            this.flushed = flushed;
            this.received = received;
            this.backNanos = backNanos;
        }

        @Override
        public void flush(ChannelHandlerContext ctx) throws Exception {
            ctx.flush();
            if (done) return;
            done = true;
            flushed.countDown();
            received.await(30, TimeUnit.SECONDS);
            backNanos.set(System.nanoTime());
        }
    }

    /** Reads the head and the Content-Length body: the server has the whole request when this returns. */
    private static void readWholeRequest(InputStream in) throws IOException {
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        int headEnd = -1;
        int length = 0;
        byte[] buf = new byte[4096];
        while (headEnd < 0 || seen.size() < headEnd + length) {
            int n = in.read(buf);
            if (n < 0) throw new IOException("the client closed before its whole request");
            seen.write(buf, 0, n);
            String text = seen.toString(StandardCharsets.ISO_8859_1);
            if (headEnd < 0 && text.contains("\r\n\r\n")) {
                headEnd = text.indexOf("\r\n\r\n") + 4;
                for (String line : text.substring(0, headEnd).split("\r\n")) {
                    if (line.toLowerCase().startsWith("content-length:")) {
                        length = Integer.parseInt(line.substring("content-length:".length()).trim());
                    }
                }
            }
        }
    }

    private static void answer(OutputStream out) throws IOException {
        StringBuilder body = new StringBuilder();
        for (String event : Streams.standard()) body.append("data: ").append(event).append("\n\n");
        byte[] events = body.toString().getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: " + events.length
                + "\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(events);
        out.flush();
    }
}
