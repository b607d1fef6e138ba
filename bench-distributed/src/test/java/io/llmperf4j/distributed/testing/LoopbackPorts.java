package io.llmperf4j.distributed.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports on 127.0.0.1 for cluster members that must be named before they bind.
 *
 * <p>A port the system handed out for {@code bind(0)} lies in its ephemeral range, and once closed the system may give
 * it again, to the next {@code bind(0)} or as the source port of any outgoing connection (a member dialling the
 * others) before the member meant to own it binds: CI saw "Port [38429] is already in use". So these come from below
 * the ephemeral range (Linux: 32768 and up), which the system never assigns by itself, are checked free when picked,
 * and are never handed out twice in one JVM.
 */
public final class LoopbackPorts {
    private static final int LOWEST = 20_000;
    private static final int BELOW_EPHEMERAL = 32_768;
    private static final Set<Integer> GIVEN = new HashSet<>();

    private LoopbackPorts() {
    }

    /** A port no socket on 127.0.0.1 holds now, never given before in this JVM. */
    public static synchronized int next() throws IOException {
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, BELOW_EPHEMERAL);
            if (!GIVEN.contains(port) && isFree(port)) {
                GIVEN.add(port);
                return port;
            }
        }
        throw new IOException("no free port on 127.0.0.1 between " + LOWEST + " and " + BELOW_EPHEMERAL);
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException taken) {
            return false;
        }
    }
}
