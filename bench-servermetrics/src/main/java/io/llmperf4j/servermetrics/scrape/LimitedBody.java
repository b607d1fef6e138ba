package io.llmperf4j.servermetrics.scrape;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/** Collects a response body and refuses it once it grows past a limit, so a runaway body cannot fill the heap. */
final class LimitedBody {

    private final int maxBytes;
    private byte[] bytes = new byte[16 * 1024];
    private int size;

    LimitedBody(int maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** Refuses a body whose announced length is already past the limit, before a byte of it is read. */
    void expect(long contentLength) throws ScrapeFailedException {
        if (contentLength > maxBytes) throw tooLarge();
    }

    /** Appends {@code chunk}'s readable bytes (leaving the buffer itself to its owner). */
    void append(ByteBuf chunk) throws ScrapeFailedException {
        int n = chunk.readableBytes();
        if ((long) size + n > maxBytes) throw tooLarge();
        if (size + n > bytes.length) {
            bytes = Arrays.copyOf(bytes, (int) Math.min(maxBytes, Math.max(size + n, 2L * bytes.length)));
        }
        chunk.getBytes(chunk.readerIndex(), bytes, size, n);
        size += n;
    }

    byte[] bytes() {
        return Arrays.copyOf(bytes, size);
    }

    private ScrapeFailedException tooLarge() {
        return new ScrapeFailedException("body exceeds the allowed maximum (" + maxBytes + " bytes)");
    }
}
