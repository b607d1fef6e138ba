package io.llmperf4j.model;

/**
 * One image sent with a request. Implementations share their bytes between every request that sends the same image
 * (generated once per seed and size), so a request holds a reference, never a copy.
 */
public interface ImageInput {
    /** {@code image/png} or {@code image/jpeg}. */
    String mediaType();

    int width();

    int height();

    /** Encoded size in bytes (before base64). */
    int byteLength();

    /** Hex SHA-256 of the encoded bytes, for manifests and replays. */
    String digest();

    /** What goes into the request: a {@code data:} URL with the base64 bytes, or an http(s) URL the user serves. */
    String url();

    /** The base64 of the encoded bytes (Anthropic's {@code image} block), or null when only a URL is known. */
    String base64();

    default long pixels() {
        return (long) width() * height();
    }
}
