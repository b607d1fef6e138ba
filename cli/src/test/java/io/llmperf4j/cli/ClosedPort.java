package io.llmperf4j.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Map;

/** A loopback port nothing listens on (bound once, then released), for "unreachable endpoint" cases. */
final class ClosedPort {
    private ClosedPort() {
    }

    static int find() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An environment whose OPENAI_API_BASE points at {@code port} on 127.0.0.1. */
    static Map<String, String> env(int port) {
        return Map.of("OPENAI_API_BASE", "http://127.0.0.1:" + port + "/v1", "OPENAI_API_KEY", "k");
    }
}
