package io.llmperf4j.datasets.images;

import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.stream.ImageInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Locale;

/**
 * Format and size of an image file read by ImageIO, which decodes it whole once to refuse a truncated or corrupt
 * file (every file image, of --image-dir or a dataset, comes through here: one rule). Kept apart from
 * {@link ImageLibrary} so that only a workload with image files loads ImageIO (about 80 classes of
 * {@code java.desktop}, its service registry included); a text run never touches it.
 */
final class ImageHeaders {
    static {
        ImageIO.setUseCache(false); // read images in memory, never through temporary files
    }

    /** What the header says. */
    record Header(ImageFormat format, int width, int height) {
    }

    private ImageHeaders() {
    }

    /**
     * The header of {@code bytes}, the content of the file at {@code path}.
     *
     * @throws IllegalArgumentException when it cannot be decoded whole or is not a PNG, JPEG or GIF image
     */
    static Header read(Path path, byte[] bytes) {
        try (ImageInputStream in = ImageIO.createImageInputStream(new ByteArrayInputStream(bytes))) {
            Iterator<ImageReader> readers = ImageIO.getImageReaders(in);
            if (readers.hasNext()) {
                ImageReader reader = readers.next();
                try {
                    reader.setInput(in, true, true);
                    ImageFormat format = switch (reader.getFormatName().toLowerCase(Locale.ROOT)) {
                        case "png" -> ImageFormat.PNG;
                        case "jpeg", "jpg" -> ImageFormat.JPEG;
                        case "gif" -> ImageFormat.GIF;
                        default -> null;
                    };
                    if (format != null) {
                        Header header = new Header(format, reader.getWidth(0), reader.getHeight(0));
                        // the whole image, not just its header: a truncated or corrupt file is refused here, once
                        // per distinct file, rather than by the server on every request that sends it
                        reader.read(0);
                        return header;
                    }
                } finally {
                    reader.dispose();
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("image " + path + " cannot be read: " + e.getMessage(), e);
        }
        throw new IllegalArgumentException("image " + path + " is not a PNG, JPEG or GIF image");
    }
}
