package io.llmperf4j.engine.client;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code X-Request-Id} values: {@code llmperf4j-<48 random bits>-<sequence>}, unique per client and, in practice,
 * across runs; readable in server logs and cheap to make (no UUID per request).
 */
final class RequestIds {

    private final String prefix;
    private final AtomicLong sequence = new AtomicLong();

    RequestIds() {
        byte[] random = new byte[6];
        new SecureRandom().nextBytes(random);
        this.prefix = "llmperf4j-" + HexFormat.of().formatHex(random) + "-";
    }

    String next() {
        return prefix + sequence.incrementAndGet();
    }
}
