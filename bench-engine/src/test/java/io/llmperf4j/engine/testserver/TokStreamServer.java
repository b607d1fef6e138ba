package io.llmperf4j.engine.testserver;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import java.util.function.IntUnaryOperator;

/**
 * A chat-completions SSE server on 127.0.0.1 whose every content event is the word "tok " (so a test's tokenizer can
 * count it in its own unit), with the server's usage counting {@code tokensPerEvent} per event, and some requests
 * broken off mid-stream (the response closed without its last chunk: no usage): the streams whose tokens the window
 * figures count by the server's tokens per event (WindowTokens). Requests are numbered from 1 in arrival order.
 *
 * @param events         content events of request n
 * @param tokensPerEvent the server's tokens per content event, in its usage
 * @param gap            the pause after each content event
 * @param broken         whether request n is broken off
 * @param brokenAfter    the content events a broken request writes before the close
 */
public record TokStreamServer(IntUnaryOperator events, int tokensPerEvent, Duration gap, IntPredicate broken,
                              int brokenAfter) {

    /** The server, started; {@link Running#close} stops it. */
    public Running start() throws IOException {
        return new Running(this);
    }

    /** A started {@link TokStreamServer}. */
    public static final class Running implements AutoCloseable {
        private final TokStreamServer shape;
        private final HttpServer server;
        private final ExecutorService pool = Executors.newCachedThreadPool();
        private final AtomicInteger requests = new AtomicInteger();

        private Running(TokStreamServer shape) throws IOException {
            this.shape = shape;
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.setExecutor(pool);
            server.createContext("/v1/chat/completions", this::stream);
            server.start();
        }

        /** "http://127.0.0.1:PORT/v1". */
        public String baseUrl() {
            return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
        }

        private void stream(HttpExchange exchange) throws IOException {
            try (InputStream in = exchange.getRequestBody()) {
                in.readAllBytes();
            }
            int number = requests.incrementAndGet();
            boolean broken = shape.broken().test(number);
            int events = shape.events().applyAsInt(number);
            exchange.getResponseHeaders().set("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            try {
                for (int k = 0; k < events; k++) {
                    if (broken && k == shape.brokenAfter()) {
                        exchange.close(); // the response ends without its last chunk: a stream broken off
                        return;
                    }
                    String delta = k == 0 ? "{\"role\":\"assistant\",\"content\":\"tok \"}" : "{\"content\":\"tok \"}";
                    write(out, "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                            + "\"delta\":" + delta + ",\"finish_reason\":null}]}");
                    Thread.sleep(shape.gap().toMillis());
                }
                int tokens = shape.tokensPerEvent() * events;
                write(out, "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},"
                        + "\"finish_reason\":\"length\"}]}");
                write(out, "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":"
                        + "{\"prompt_tokens\":2,\"completion_tokens\":" + tokens + ",\"total_tokens\":" + (tokens + 2)
                        + "}}");
                out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
                out.close();
            } catch (IOException | InterruptedException gone) {
                exchange.close(); // the client cancelled (a fork's end, the run's)
            }
        }

        private static void write(OutputStream out, String json) throws IOException {
            out.write(("data: " + json + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        @Override
        public void close() {
            server.stop(0);
            pool.shutdownNow();
        }
    }
}
