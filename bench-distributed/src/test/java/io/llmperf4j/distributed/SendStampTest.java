package io.llmperf4j.distributed;

import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.engine.client.ConnectionMode;
import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.PreparedRequest;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker tells the coordinator each measured send at the client's own start stamp, the instant the request's record
 * counts from and the runner places its send at, so a request lost with the worker sits where its record would have.
 * The real Netty client against a server in this test on 127.0.0.1, behind a client that does work of its own before
 * handing the request on (as building a request does): the wrapper's stamp before the call is not that instant.
 */
class SendStampTest {
    private HttpServer server;
    private NettyLlmClient netty;

    /** What the watching client told, in order. */
    private record Told(String clientRequestId, long sentNanos) {
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] body = ("data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},"
                    + "\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream o = exchange.getResponseBody()) {
                o.write(body);
            }
        });
        server.start();
        ClientSpec spec = new ClientSpec(URI.create("http://127.0.0.1:" + server.getAddress().getPort()
                + "/v1/chat/completions"), "openai", true, "m", Map.of(), true, 2, 30_000, null, 10_000, Map.of(),
                false, null, ConnectionMode.PRECONNECT);
        netty = new NettyLlmClient(spec.clientConfig(""), spec.api());
    }

    @AfterEach
    void stop() {
        if (netty != null) netty.close();
        if (server != null) server.stop(0);
    }

    @Test
    @Timeout(60)
    void aMeasuredSendIsToldAtTheClientsStartStamp() throws Exception {
        LlmClient slowToHandOn = new LlmClient() {
            @Override
            public RequestHandle send(RequestSpec spec) {
                work();
                return netty.send(spec);
            }

            @Override
            public PreparedRequest prepare(RequestSpec spec, Runnable whenEnded) {
                PreparedRequest real = netty.prepare(spec, whenEnded);
                return new PreparedRequest() {
                    @Override
                    public RequestHandle send() {
                        work();
                        return real.send();
                    }

                    @Override
                    public void discard() {
                        real.discard();
                    }
                };
            }

            @Override
            public void close() {
            }
        };
        List<Told> told = new CopyOnWriteArrayList<>();
        SendWatchingClient watched = new SendWatchingClient(slowToHandOn, new SendWatchingClient.Watcher() {
            @Override
            public boolean measuring() {
                return true;
            }

            @Override
            public void sent(String clientRequestId, RequestSpec spec, long sentNanos) {
                told.add(new Told(clientRequestId, sentNanos));
            }
        }, 0);

        long before = System.nanoTime();
        RequestHandle sent = watched.send(new RequestSpec(0, "a prompt", 5, 8)); // a closed loop's send
        RequestHandle prepared = watched.prepare(new RequestSpec(1, "a prompt", 5, 8), null).send(); // an open loop's
        for (RequestHandle h : List.of(sent, prepared)) {
            RequestRecord record = h.completion().get(30, TimeUnit.SECONDS);
            assertTrue(record.succeeded(), record::toString);
            assertNotEquals(RequestRecord.NEVER, h.startNanos(), "the Netty client tells its start");
        }
        // before: each was told at the wrapper's stamp, taken before the work, 5 ms or more before the client's
        assertEquals(List.of(new Told(sent.clientRequestId(), sent.startNanos()),
                new Told(prepared.clientRequestId(), prepared.startNanos())), told);
        assertTrue(told.get(0).sentNanos() - before >= TimeUnit.MILLISECONDS.toNanos(5), "the work came first");
    }

    /** Work before the request is handed on, as taking a fresh prompt or building the body is: 5 ms at least. */
    private static void work() {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5);
        while (System.nanoTime() < until) LockSupport.parkNanos(until - System.nanoTime());
    }
}
