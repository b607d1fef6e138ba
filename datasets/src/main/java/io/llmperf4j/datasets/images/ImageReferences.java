package io.llmperf4j.datasets.images;

import io.llmperf4j.model.ImageInput;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Turns a dataset's image entries (a path relative to the dataset file, or an http(s) URL) into images, in the data
 * or the url mode: a file is sent inline, or as {@code baseUrl + "/" + its path} in the url mode; a URL is sent as
 * is in the url mode and refused in the data mode (the client never downloads).
 */
public final class ImageReferences {
    private final Path baseDir;
    private final ImageLibrary library;
    private final boolean urlMode;
    private final String baseUrl;

    public ImageReferences(Path baseDir, ImageLibrary library, boolean urlMode, String baseUrl) {
        this.baseDir = baseDir.toAbsolutePath().normalize();
        this.library = Objects.requireNonNull(library, "library");
        this.urlMode = urlMode;
        this.baseUrl = baseUrl == null || !baseUrl.endsWith("/") ? baseUrl : baseUrl.substring(0, baseUrl.length() - 1);
    }

    /** Files sent inline, relative to {@code baseDir}; URLs refused. */
    public static ImageReferences dataMode(Path baseDir) {
        return new ImageReferences(baseDir, new ImageLibrary(), false, null);
    }

    /** @throws IllegalArgumentException saying what cannot be sent and what to do */
    public ImageInput resolve(String reference) {
        if (ImageLibrary.isHttpUrl(reference)) {
            if (!urlMode) {
                throw new IllegalArgumentException("image '" + reference + "' is a URL, which the data mode cannot "
                        + "send (the client never downloads): use the url mode (--image-url-mode url)");
            }
            return library.remote(reference);
        }
        if (reference.startsWith("data:")) {
            throw new IllegalArgumentException("inline data: images are not read from datasets; give a file path");
        }
        Path path = baseDir.resolve(reference).normalize();
        if (!urlMode) return library.file(path, null);
        if (baseUrl == null) {
            throw new IllegalArgumentException("image '" + reference + "' is a file: sending it as a URL needs the "
                    + "base URL that serves it (--image-base-url)");
        }
        String relative = baseDir.relativize(path).toString().replace('\\', '/');
        return library.file(path, baseUrl + "/" + relative);
    }

    public ImageLibrary library() {
        return library;
    }
}
