package io.llmperf4j.cli;

import io.llmperf4j.distributed.testing.LoopbackPorts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/** A loopback port nothing listens on, for "unreachable endpoint" cases. */
final class ClosedPort {
    private ClosedPort() {
    }

    /** One from below the ephemeral range, so no outgoing connection is given it as its source port meanwhile. */
    static int find() {
        try {
            return LoopbackPorts.next();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An environment whose OPENAI_API_BASE points at {@code port} on 127.0.0.1. */
    static Map<String, String> env(int port) {
        return Map.of("OPENAI_API_BASE", "http://127.0.0.1:" + port + "/v1", "OPENAI_API_KEY", "k");
    }
}
