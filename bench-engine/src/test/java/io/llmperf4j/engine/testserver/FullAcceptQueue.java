package io.llmperf4j.engine.testserver;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

/**
 * A listening socket on 127.0.0.1 that never accepts, with its accept queue filled: Linux drops the SYNs it cannot
 * queue, so a connect to it hangs until the client's own timeout. A black-holed address cannot be relied on in a
 * test; this can, where the kernel behaves so ({@link #stallsConnects()}).
 */
public final class FullAcceptQueue implements AutoCloseable {

    private final ServerSocket server;
    private final List<Socket> fillers = new ArrayList<>();
    private final boolean stalls;

    public FullAcceptQueue() throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        stalls = fill();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** Whether a connect now hangs; false when the kernel kept accepting connects (the tests then skip). */
    public boolean stallsConnects() {
        return stalls;
    }

    /** Connects until one connect stalls. */
    private boolean fill() throws IOException {
        for (int i = 0; i < 64; i++) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port()), 200);
                fillers.add(s);
            } catch (SocketTimeoutException e) {
                s.close();
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() throws IOException {
        for (Socket s : fillers) s.close();
        server.close();
    }
}
