package io.llmperf4j.datasets.images;

import io.llmperf4j.model.ImageInput;

import java.util.Objects;

/**
 * One image as requests send it. An instance comes from an {@link ImageLibrary}, which makes one per distinct image:
 * every request that sends the image holds this same object, never a copy of its bytes. The base64 text is kept
 * (about 4/3 of the encoded size, one byte per character), the raw bytes are not.
 */
public final class EncodedImage implements ImageInput {
    private static final int UNKNOWN = 0;

    private final ImageSource source;
    private final ImageFormat format;
    private final int width;
    private final int height;
    private final int byteLength;
    private final String digest;
    private final String base64;
    private final String link;

    private EncodedImage(ImageSource source, ImageFormat format, int width, int height, int byteLength, String digest,
                         String base64, String link) {
        this.source = Objects.requireNonNull(source, "source");
        this.format = format;
        this.width = width;
        this.height = height;
        this.byteLength = byteLength;
        this.digest = digest;
        this.base64 = base64;
        this.link = link;
    }

    /** An image sent inline, as a {@code data:} URL (OpenAI) or a base64 source (Anthropic). */
    static EncodedImage inline(ImageSource source, ImageFormat format, int width, int height, int byteLength,
                               String digest, String base64) {
        return new EncodedImage(source, format, width, height, byteLength, digest, Objects.requireNonNull(base64), null);
    }

    /** An image sent as an http(s) URL; what is known of its bytes (nothing for a {@link ImageSource.Remote}). */
    static EncodedImage linked(ImageSource source, ImageFormat format, int width, int height, int byteLength,
                               String digest, String url) {
        return new EncodedImage(source, format, width, height, byteLength, digest, null, Objects.requireNonNull(url));
    }

    /** A URL the user serves and the client never reads: size, bytes and digest unknown. */
    static EncodedImage remote(String url) {
        return linked(new ImageSource.Remote(url), null, UNKNOWN, UNKNOWN, UNKNOWN, null, url);
    }

    public ImageSource source() {
        return source;
    }

    /** The encoding, or null when unknown (a remote URL). */
    public ImageFormat format() {
        return format;
    }

    /** True when the request sends an http(s) URL instead of the bytes. */
    public boolean sentAsUrl() {
        return link != null;
    }

    @Override
    public String mediaType() {
        return format == null ? null : format.mediaType();
    }

    @Override
    public int width() {
        return width;
    }

    @Override
    public int height() {
        return height;
    }

    @Override
    public int byteLength() {
        return byteLength;
    }

    @Override
    public String digest() {
        return digest;
    }

    /** The http(s) URL, or a {@code data:} URL built for this one request (the base64 text itself is shared). */
    @Override
    public String url() {
        return link != null ? link : "data:" + format.mediaType() + ";base64," + base64;
    }

    @Override
    public String base64() {
        return link != null ? null : base64;
    }

    /** Characters held for this image (its base64 text), for memory accounting. */
    long heldChars() {
        return base64 == null ? 0 : base64.length();
    }

    @Override
    public String toString() {
        return "EncodedImage[" + source + ", " + width + "x" + height + ", " + byteLength + " bytes"
                + (link != null ? ", url " + link : "") + "]";
    }
}
