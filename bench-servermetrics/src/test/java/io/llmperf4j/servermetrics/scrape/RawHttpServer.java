package io.llmperf4j.servermetrics.scrape;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real TCP server on 127.0.0.1 that answers each request with exactly the bytes a test scripts, so the scrape can
 * be shown chunked bodies, bodies ended by the connection's close, cut-short and malformed responses, stalls, and
 * kept connections the server drops. Each connection gets its own thread; requests on it are answered in turn.
 */
final class RawHttpServer implements AutoCloseable {

    /** How one request is answered: write to {@code out}; return false to close the connection afterwards. */
    interface Answer {
        boolean answer(String requestHead, OutputStream out, Connection connection) throws IOException;
    }

    /** What a test can do with the connection beyond writing: stall until the server closes, count its requests. */
    final class Connection {
        final int number;
        int requests;

        Connection(int number) {
            this.number = number;
        }

        /** Blocks (at most 30 s, against a hang) until the test's server is closed. */
        void stall() {
            try {
                released.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private final ServerSocket server;
    private final CountDownLatch released = new CountDownLatch(1);
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    /** Every request head received, in order. */
    final List<String> requests = new CopyOnWriteArrayList<>();
    volatile Answer answer;

    RawHttpServer(Answer answer) throws IOException {
        this.answer = answer;
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "raw-http-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A 200 with {@code body} and a Content-Length, keeping the connection. */
    static Answer ok(String body) {
        return (head, out, c) -> {
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: " + b.length
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(b);
            out.flush();
            return true;
        };
    }

    URI url(String path) {
        return URI.create("http://127.0.0.1:" + server.getLocalPort() + path);
    }

    /** Connections accepted so far. */
    int connections() {
        return connections.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                sockets.add(s);
                Connection c = new Connection(connections.incrementAndGet());
                Thread t = new Thread(() -> serve(s, c), "raw-http-" + c.number);
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket s, Connection c) {
        try (s) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            String head;
            while ((head = readHead(in)) != null) {
                requests.add(head);
                c.requests++;
                if (!answer.answer(head, out, c)) return;
            }
        } catch (IOException e) {
            // the client went away
        }
    }

    /** The request line and headers up to the blank line, or null at the end of the stream. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        for (int b; (b = in.read()) >= 0; ) {
            head.write(b);
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
            if (matched == 4) return head.toString(StandardCharsets.ISO_8859_1);
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        released.countDown();
        server.close();
        for (Socket s : sockets) s.close();
    }
}
