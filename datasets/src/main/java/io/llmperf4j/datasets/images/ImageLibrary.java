package io.llmperf4j.datasets.images;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The images of one workload, each made once and shared: a synthetic image once per distinct (seed, size, format,
 * quality), a file once per path, whatever number of requests send it. Thread-safe. Every run makes one, so it
 * touches ImageIO only through {@link ImageHeaders} and {@link SyntheticImages}, when an image is first made.
 */
public final class ImageLibrary {

    private final Map<Object, EncodedImage> images = new ConcurrentHashMap<>();
    private final AtomicLong heldChars = new AtomicLong();

    /** The synthetic image {@code source} describes, encoded on first use. */
    public EncodedImage synthetic(ImageSource.Synthetic source) {
        return images.computeIfAbsent(source, key -> {
            byte[] bytes = SyntheticImages.encode(source);
            return held(EncodedImage.inline(source, source.format(), source.width(), source.height(), bytes.length,
                    sha256Hex(bytes), Base64.getEncoder().encodeToString(bytes)));
        });
    }

    /**
     * The image file at {@code path}, read once: sent inline when {@code url} is null, else as that URL (then only
     * its size and digest are kept, not its bytes).
     *
     * @throws IllegalArgumentException when it is missing, unreadable, or not a PNG, JPEG or GIF image
     */
    public EncodedImage file(Path path, String url) {
        ImageSource.File source = new ImageSource.File(path);
        return images.computeIfAbsent(url == null ? source : new Linked(source, url), key -> {
            byte[] bytes = read(source.path());
            ImageHeaders.Header header = ImageHeaders.read(source.path(), bytes);
            String digest = sha256Hex(bytes);
            return held(url == null
                    ? EncodedImage.inline(source, header.format(), header.width(), header.height(), bytes.length,
                    digest, Base64.getEncoder().encodeToString(bytes))
                    : EncodedImage.linked(source, header.format(), header.width(), header.height(), bytes.length,
                    digest, url));
        });
    }

    /** An http(s) URL the user serves: sent as is, never read by the client. */
    public EncodedImage remote(String url) {
        if (!isHttpUrl(url)) throw new IllegalArgumentException("'" + url + "' is not an http(s) URL");
        return images.computeIfAbsent(new ImageSource.Remote(url), key -> EncodedImage.remote(url));
    }

    /** Distinct images held. */
    public int size() {
        return images.size();
    }

    /** Characters of base64 text held for all images (one byte each in a compact string). */
    public long heldChars() {
        return heldChars.get();
    }

    private EncodedImage held(EncodedImage image) {
        heldChars.addAndGet(image.heldChars());
        return image;
    }

    public static boolean isHttpUrl(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        return lower.startsWith("http://") || lower.startsWith("https://");
    }

    public static String sha256Hex(byte[] bytes) {
        try {
            return java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks SHA-256", e);
        }
    }

    private record Linked(ImageSource.File file, String url) {
    }

    private static byte[] read(Path path) {
        if (!Files.isRegularFile(path)) {
            throw new IllegalArgumentException("image " + path + (Files.exists(path) ? " is not a regular file"
                    : " does not exist"));
        }
        try {
            return Files.readAllBytes(path);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read image " + path + ": " + e.getMessage(), e);
        }
    }
}
