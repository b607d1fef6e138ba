package io.llmperf4j.servermetrics.scrape;

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

    /** Appends {@code length} bytes of {@code source} from {@code offset}. */
    void append(byte[] source, int offset, int length) throws ScrapeFailedException {
        if ((long) size + length > maxBytes) throw tooLarge();
        if (size + length > bytes.length) {
            bytes = Arrays.copyOf(bytes, (int) Math.min(maxBytes, Math.max(size + length, 2L * bytes.length)));
        }
        System.arraycopy(source, offset, bytes, size, length);
        size += length;
    }

    int size() {
        return size;
    }

    byte[] bytes() {
        return Arrays.copyOf(bytes, size);
    }

    private ScrapeFailedException tooLarge() {
        return new ScrapeFailedException("body exceeds the allowed maximum (" + maxBytes + " bytes)");
    }
}
