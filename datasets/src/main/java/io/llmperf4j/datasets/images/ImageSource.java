package io.llmperf4j.datasets.images;

import java.nio.file.Path;
import java.util.Objects;

/** Where an image's bytes come from: what a manifest records so a replay sends the same bytes. */
public sealed interface ImageSource permits ImageSource.Synthetic, ImageSource.File, ImageSource.Remote {

    /**
     * A {@link SyntheticImages} image: its bytes depend only on these values.
     *
     * @param quality JPEG quality 1..100; 0 for PNG
     */
    record Synthetic(long seed, int width, int height, ImageFormat format, int quality) implements ImageSource {
        public Synthetic {
            Objects.requireNonNull(format, "format");
            if (width < 1 || height < 1) {
                throw new IllegalArgumentException("image size " + width + "x" + height + " must be at least 1x1");
            }
            if (format == ImageFormat.GIF) throw new IllegalArgumentException("synthetic images are png or jpeg");
            if (format == ImageFormat.JPEG && (quality < 1 || quality > 100)) {
                throw new IllegalArgumentException("JPEG quality (" + quality + ") must be from 1 to 100");
            }
            if (format == ImageFormat.PNG) quality = 0;
        }
    }

    /** An image file on this machine, by absolute path. */
    record File(Path path) implements ImageSource {
        public File {
            path = path.toAbsolutePath().normalize();
        }
    }

    /** An http(s) URL the user serves; the client never reads it, the server fetches it. */
    record Remote(String url) implements ImageSource {
        public Remote {
            Objects.requireNonNull(url, "url");
        }
    }
}
