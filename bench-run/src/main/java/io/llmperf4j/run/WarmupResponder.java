package io.llmperf4j.run;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The client warm-up's server: OpenAI-style chat streams over HTTP/1.1 keep-alive on 127.0.0.1, one JDK NIO thread,
 * canned bytes. Streamed the way vLLM streams them (a role event, one content event per token, the last with its
 * finish reason, the usage event when asked for, {@code data: [DONE]}, each event an HTTP chunk), so the client's
 * code sees a real server's shapes; and it shares no code with the client. The embedded simulator did this job
 * before, but its Netty HTTP server decoded requests with the very decoder class the client decodes responses with
 * (the run then recompiled the decoder for responses alone), and compiling its own Jackson, codec and generation code
 * took half the warm-up's compiler time and most of its peak memory (a big C2 compilation is 20-30 MB).
 *
 * <p>The model name picks the pace: {@link #PACED_MODEL} gets one token every {@link #PACE_NANOS} (a real server's
 * stream: one or a few events a read), any other model all tokens at once (a stream ceiling: dozens a read). Every
 * other pair of unpaced responses frames its events {@value WarmupResponseBytes#EVENTS_PER_GROUP} to an HTTP chunk,
 * as servers that flush several events a write do (the side-by-side's reference server at its ceiling): the client
 * then decodes reads of many events per chunk too, whose buffers and branches the run would otherwise compile inside
 * its window. The bytes are canned ({@link WarmupResponseBytes}): each answer is a gathering write of shared direct
 * buffers, no bytes built or copied per response.
 */
final class WarmupResponder implements AutoCloseable {
    static final String PACED_MODEL = "warmup-paced";
    static final long PACE_NANOS = 100_000;
    private static final int MAX_REQUEST_BYTES = 1 << 20;
    private static final byte[] HEAD_END = utf8("\r\n\r\n");
    private static final byte[] CRLF = utf8("\r\n");
    private static final byte[] CONTENT_LENGTH = utf8("content-length:");
    private static final byte[] CHAT_POST = utf8("POST /v1/chat/completions ");
    private static final byte[] GET = utf8("GET ");

    private final ServerSocketChannel server;
    private final Selector selector;
    private final Thread thread;
    private final List<Stream> paced = new ArrayList<>();
    private final WarmupResponseBytes responseBytes = new WarmupResponseBytes();
    private volatile boolean closed;

    private WarmupResponder(ServerSocketChannel server, Selector selector) {
        this.server = server;
        this.selector = selector;
        this.thread = new Thread(this::loop, "llmperf4j-warmup-responder");
        thread.setDaemon(true);
    }

    /** Listens on an ephemeral port of 127.0.0.1 and serves until {@link #close()}. */
    static WarmupResponder start() throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        Selector selector = null;
        try {
            server.bind(new InetSocketAddress("127.0.0.1", 0)); // the address baseUrl() names, IPv6 preferred or not
            server.configureBlocking(false);
            selector = Selector.open();
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException | RuntimeException e) {
            server.close();
            if (selector != null) selector.close();
            throw e;
        }
        WarmupResponder responder = new WarmupResponder(server, selector);
        responder.thread.start();
        return responder;
    }

    /** The OpenAI base URL, {@code http://127.0.0.1:PORT/v1}. */
    String baseUrl() {
        return "http://127.0.0.1:" + server.socket().getLocalPort() + "/v1";
    }

    @Override
    public void close() {
        closed = true;
        selector.wakeup();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            for (SelectionKey key : selector.keys()) key.channel().close();
            selector.close();
            server.close();
        } catch (IOException | ClosedSelectorException e) {
            // closing a private server: nothing left to do
        }
    }

    private void loop() {
        try {
            while (!closed) {
                long due = writeDueTokens(System.nanoTime());
                long wait = due - System.nanoTime();
                if (due == Long.MAX_VALUE) {
                    selector.select();
                } else if (wait >= TimeUnit.MILLISECONDS.toNanos(1)) {
                    selector.select(TimeUnit.NANOSECONDS.toMillis(wait));
                } else if (selector.selectNow() == 0 && wait > 0) {
                    LockSupport.parkNanos(wait); // sub-millisecond pace: select() counts in milliseconds
                }
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey key = keys.next();
                    keys.remove();
                    handle(key);
                }
            }
        } catch (IOException | ClosedSelectorException e) {
            // the warm-up only loses accuracy; its client sees the connections close
        }
    }

    private void handle(SelectionKey key) {
        try {
            if (!key.isValid()) return;
            if (key.isAcceptable()) {
                SocketChannel channel = server.accept();
                if (channel == null) return;
                channel.configureBlocking(false);
                channel.register(selector, SelectionKey.OP_READ, new Connection(channel));
                return;
            }
            Connection connection = (Connection) key.attachment();
            if (key.isWritable()) connection.flush(key);
            if (key.isValid() && key.isReadable()) connection.read(key);
        } catch (IOException | RuntimeException e) {
            close(key);
        }
    }

    private void close(SelectionKey key) {
        key.cancel();
        paced.removeIf(stream -> stream.connection.channel == key.channel());
        try {
            key.channel().close();
        } catch (IOException e) {
            // already gone
        }
    }

    /** Writes one token of every paced stream that is due; the earliest next due time, or Long.MAX_VALUE. */
    private long writeDueTokens(long now) {
        long next = Long.MAX_VALUE;
        List<SelectionKey> failed = new ArrayList<>();
        for (Iterator<Stream> it = paced.iterator(); it.hasNext(); ) {
            Stream stream = it.next();
            if (stream.dueNanos - now <= 0) {
                ByteBuffer events = stream.nextTokenChunks(responseBytes);
                if (stream.done()) {
                    it.remove();
                } else {
                    stream.dueNanos += PACE_NANOS;
                }
                SelectionKey key = stream.connection.channel.keyFor(selector);
                try {
                    stream.connection.send(key, events);
                } catch (IOException e) {
                    if (key != null) failed.add(key);
                }
            }
            if (!stream.done()) next = Math.min(next, stream.dueNanos);
        }
        failed.forEach(this::close);
        return next;
    }

    /** One keep-alive connection: its request bytes and the response bytes the socket has not taken yet. */
    private final class Connection {
        private final SocketChannel channel;
        private ByteBuffer in = ByteBuffer.allocate(8192);
        private final ArrayDeque<ByteBuffer> out = new ArrayDeque<>();
        private int responses;

        Connection(SocketChannel channel) {
            this.channel = channel;
        }

        void read(SelectionKey key) throws IOException {
            if (!in.hasRemaining()) {
                if (in.capacity() >= MAX_REQUEST_BYTES) throw new IOException("request too large");
                ByteBuffer bigger = ByteBuffer.allocate(in.capacity() * 2);
                in.flip();
                in = bigger.put(in);
            }
            if (channel.read(in) < 0) throw new IOException("closed by the client");
            for (String body; (body = nextBody()) != null; ) respond(body, key);
        }

        /** The body of the next whole request in the buffer (its bytes consumed), or null while it is incomplete. */
        private String nextBody() throws IOException {
            byte[] bytes = in.array();
            int end = in.position();
            int headEnd = indexOf(bytes, 0, end, HEAD_END);
            if (headEnd < 0) return null;
            headEnd += HEAD_END.length;
            int length = contentLength(bytes, headEnd);
            if (headEnd + length > end) return null;
            boolean chat = startsWith(bytes, 0, CHAT_POST);
            String body = chat ? new String(bytes, headEnd, length, StandardCharsets.UTF_8) : "";
            in.flip().position(headEnd + length);
            in.compact();
            return body;
        }

        /** The Content-Length of the head {@code bytes[0, headEnd)}; 0 for a GET without one. */
        private int contentLength(byte[] bytes, int headEnd) throws IOException {
            for (int line = indexOf(bytes, 0, headEnd, CRLF) + 2; line < headEnd; ) {
                int next = indexOf(bytes, line, headEnd, CRLF);
                if (next < 0) break;
                if (startsWithIgnoringCase(bytes, line, CONTENT_LENGTH)) {
                    int value = 0;
                    for (int i = line + CONTENT_LENGTH.length; i < next; i++) {
                        if (bytes[i] >= '0' && bytes[i] <= '9') value = value * 10 + (bytes[i] - '0');
                    }
                    return value;
                }
                line = next + 2;
            }
            if (startsWith(bytes, 0, GET)) return 0;
            throw new IOException("a request without a content-length");
        }

        private void respond(String body, SelectionKey key) throws IOException {
            if (body.isEmpty()) {
                send(key, WarmupResponseBytes.notFound());
                return;
            }
            int max = intAfter(body, "\"max_tokens\":");
            if (max < 0) max = intAfter(body, "\"max_completion_tokens\":");
            Stream stream = new Stream(this, max > 0 ? max : 16, body.contains("\"include_usage\":true"),
                    body.length() / 4);
            int response = responses++;
            ByteBuffer head = WarmupResponseBytes.head(response);
            if (!body.contains("\"model\":\"" + PACED_MODEL + "\"")) {
                // both header sets, both framings
                boolean grouped = response / WarmupResponseBytes.HEADS_IN_TURN % 2 == 1;
                send(key, responseBytes.whole(head, stream.tokens, stream.usage, stream.promptTokens, grouped));
                return;
            }
            ByteBuffer first = stream.nextTokenChunks(responseBytes);
            if (!stream.done()) {
                stream.dueNanos = System.nanoTime() + PACE_NANOS;
                paced.add(stream);
            }
            send(key, head, WarmupResponseBytes.roleChunk(), first);
        }

        /**
         * Writes {@code buffers} (ready to read; shared bytes, so duplicates) now, or as soon as the socket takes
         * them, in order: one gathering write, no copy (direct buffers).
         */
        void send(SelectionKey key, ByteBuffer... buffers) throws IOException {
            if (out.isEmpty()) channel.write(buffers);
            for (ByteBuffer buffer : buffers) {
                if (buffer.hasRemaining()) out.add(buffer);
            }
            if (!out.isEmpty() && key != null) key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
        }

        void flush(SelectionKey key) throws IOException {
            while (!out.isEmpty()) {
                ByteBuffer head = out.peek();
                channel.write(head);
                if (head.hasRemaining()) return;
                out.poll();
            }
            key.interestOps(SelectionKey.OP_READ);
        }
    }

    /** One paced response's progress: how many of its tokens were written. */
    private static final class Stream {
        private final Connection connection;
        private final int tokens;
        private final boolean usage;
        private final int promptTokens;
        private int written;
        long dueNanos;

        Stream(Connection connection, int tokens, boolean usage, int promptTokens) {
            this.connection = connection;
            this.tokens = tokens;
            this.usage = usage;
            this.promptTokens = promptTokens;
        }

        boolean done() {
            return written == tokens;
        }

        /** The next token's HTTP chunk; for the last, with the end (usage when asked, [DONE], the last chunk). */
        ByteBuffer nextTokenChunks(WarmupResponseBytes bytes) {
            int token = written++;
            if (!done()) return WarmupResponseBytes.tokenChunk(token);
            return bytes.end(tokens, usage, promptTokens, false, tokens);
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static int indexOf(byte[] bytes, int from, int to, byte[] needle) {
        for (int i = from; i + needle.length <= to; i++) {
            if (startsWith(bytes, i, needle)) return i;
        }
        return -1;
    }

    private static boolean startsWith(byte[] bytes, int at, byte[] prefix) {
        if (at + prefix.length > bytes.length) return false;
        for (int i = 0; i < prefix.length; i++) {
            if (bytes[at + i] != prefix[i]) return false;
        }
        return true;
    }

    /** Whether {@code bytes} hold {@code lowerCase} (ASCII letters in any case) at {@code at}. */
    private static boolean startsWithIgnoringCase(byte[] bytes, int at, byte[] lowerCase) {
        if (at + lowerCase.length > bytes.length) return false;
        for (int i = 0; i < lowerCase.length; i++) {
            int b = bytes[at + i];
            if (b >= 'A' && b <= 'Z') b += 'a' - 'A';
            if (b != lowerCase[i]) return false;
        }
        return true;
    }

    /** The non-negative integer right after {@code key} in {@code json} (spaces skipped), or -1. */
    private static int intAfter(String json, String key) {
        int at = json.indexOf(key);
        if (at < 0) return -1;
        int i = at + key.length();
        while (i < json.length() && json.charAt(i) == ' ') i++;
        int value = -1;
        for (; i < json.length() && Character.isDigit(json.charAt(i)); i++) {
            value = Math.max(value, 0) * 10 + (json.charAt(i) - '0');
        }
        return value;
    }
}
