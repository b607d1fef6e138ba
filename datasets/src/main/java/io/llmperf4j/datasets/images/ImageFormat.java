package io.llmperf4j.datasets.images;

import java.util.Locale;

/** The encodings images are sent in. */
public enum ImageFormat {
    PNG("image/png", "png"),
    JPEG("image/jpeg", "jpeg"),
    GIF("image/gif", "gif");

    private final String mediaType;
    private final String name;

    ImageFormat(String mediaType, String name) {
        this.mediaType = mediaType;
        this.name = name;
    }

    public String mediaType() {
        return mediaType;
    }

    /** The lower-case name used in flags and manifests, also ImageIO's format name. */
    public String formatName() {
        return name;
    }

    /**
     * {@code png}, {@code jpeg} (also {@code jpg}) or {@code gif}, any case.
     *
     * @throws IllegalArgumentException naming the value and the accepted ones
     */
    public static ImageFormat parse(String text) {
        String value = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        return switch (value) {
            case "png" -> PNG;
            case "jpeg", "jpg" -> JPEG;
            case "gif" -> GIF;
            default -> throw new IllegalArgumentException("unknown image format '" + text + "': use png or jpeg");
        };
    }
}
