package io.llmperf4j.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;

/**
 * A TCP relay in front of a server on 127.0.0.1 that keeps what every client sent, so a test can count the requests
 * that reached the server, by the key they carried (a 401 leaves no trace in the simulator's own counters). With
 * {@link #holdPostsAfter} it also holds every later request until {@link #release}: a run that cannot end before the
 * test says so, where a slow server only made that likely.
 */
final class CountingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final int target;
    private final List<StringBuilder> sent = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile int passedPosts = Integer.MAX_VALUE;

    CountingProxy(int targetPort) throws IOException {
        this.target = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::accept, "counting-proxy");
        accept.setDaemon(true);
        accept.start();
    }

    /** The base URL through this relay. */
    String baseUrl() {
        return "http://127.0.0.1:" + listener.getLocalPort() + "/v1";
    }

    /**
     * POST requests to {@code /v1/} sent so far whose {@code Authorization} is {@code Bearer key}; a null key: every
     * such POST. A request line can follow the previous body directly on a kept-alive connection, so it is looked
     * for anywhere (the tests' prompts hold no request line).
     */
    synchronized int posts(String key) {
        String wanted = key == null ? null : "\r\nauthorization: bearer " + key.toLowerCase(Locale.ROOT) + "\r\n";
        int n = 0;
        for (StringBuilder connection : sent) {
            String text = connection.toString();
            for (int at = text.indexOf("POST /v1/"); at >= 0; at = text.indexOf("POST /v1/", at + 1)) {
                int headersEnd = text.indexOf("\r\n\r\n", at);
                String head = text.substring(at, headersEnd < 0 ? text.length() : headersEnd + 2)
                        .toLowerCase(Locale.ROOT);
                if (wanted == null || head.contains(wanted)) n++;
            }
        }
        return n;
    }

    /**
     * From now on, a read from a client that brings the POST count past {@code posts} is not relayed (nor is anything
     * after it) until {@link #release}.
     */
    CountingProxy holdPostsAfter(int posts) {
        passedPosts = posts;
        return this;
    }

    /** Relays what {@link #holdPostsAfter} held, and everything after it. */
    void release() {
        released.countDown();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
                StringBuilder transcript = new StringBuilder();
                synchronized (this) {
                    sent.add(transcript);
                    sockets.add(client);
                    sockets.add(server);
                }
                pump(client, server, transcript);
                pump(server, client, null);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void pump(Socket from, Socket to, StringBuilder transcript) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    boolean hold = false;
                    if (transcript != null) {
                        synchronized (this) {
                            transcript.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
                            // counted only when armed: a relay that never holds scans no transcripts
                            hold = passedPosts != Integer.MAX_VALUE && posts(null) > passedPosts;
                        }
                    }
                    if (hold) released.await();
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side left
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                close(from);
                close(to);
            }
        }, "counting-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing
        }
    }

    @Override
    public synchronized void close() throws IOException {
        listener.close();
        for (Socket s : sockets) close(s);
    }
}
