package io.llmperf4j.datasets.images;

import io.llmperf4j.tokenize.prompt.LengthDistribution;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The images a workload's requests carry, as the image flags give them (see {@link ImageAttachment}).
 *
 * @param perRequest images added to each request, or null to add none (a dataset's own images are still sent)
 * @param widths     widths of synthetic images in pixels
 * @param heights    heights of synthetic images in pixels
 * @param format     encoding of synthetic images
 * @param quality    JPEG quality 1..100 (ignored for PNG)
 * @param variants   distinct synthetic images per size: requests cycle through this many seeds, so a server that
 *                   caches identical images sees them repeat only every {@code variants} images
 * @param folder     take the images from this folder's PNG, JPEG and GIF files (name order, round robin) instead
 *                   of synthesizing them, or null
 * @param urlMode    send http(s) URLs instead of the bytes
 * @param baseUrl    with {@code urlMode}: where the user serves the folder's or the dataset's image files
 *                   ({@code baseUrl + "/" + relative path}), or null
 * @param detail     OpenAI's {@code image_url.detail} on every image part ({@link #DETAILS}: low, high, auto), which
 *                   sets the image's token cost on OpenAI and compatible vision servers; null to send none
 */
public record ImageOptions(CountDistribution perRequest, LengthDistribution widths, LengthDistribution heights,
                           ImageFormat format, int quality, int variants, Path folder, boolean urlMode,
                           String baseUrl, String detail) {
    public static final int DEFAULT_SIDE = 512;
    public static final int DEFAULT_QUALITY = 85;
    public static final int DEFAULT_VARIANTS = 8;
    /** The values of OpenAI's {@code image_url.detail}. */
    public static final List<String> DETAILS = List.of("low", "high", "auto");

    /** Without a detail. */
    public ImageOptions(CountDistribution perRequest, LengthDistribution widths, LengthDistribution heights,
                        ImageFormat format, int quality, int variants, Path folder, boolean urlMode, String baseUrl) {
        this(perRequest, widths, heights, format, quality, variants, folder, urlMode, baseUrl, null);
    }

    public ImageOptions {
        if (detail != null && !DETAILS.contains(detail)) {
            throw new IllegalArgumentException("image detail must be low, high or auto, not '" + detail + "'");
        }
        widths = widths == null ? LengthDistribution.fixed(DEFAULT_SIDE) : widths;
        heights = heights == null ? LengthDistribution.fixed(DEFAULT_SIDE) : heights;
        format = format == null ? ImageFormat.PNG : format;
        if (format == ImageFormat.GIF) throw new IllegalArgumentException("synthetic images are png or jpeg, not gif");
        if (quality < 1 || quality > 100) {
            throw new IllegalArgumentException("image quality (" + quality + ") must be from 1 to 100");
        }
        if (variants < 1) throw new IllegalArgumentException("image variants (" + variants + ") must be >= 1");
        if (widths.max() > SyntheticImages.MAX_SIDE || heights.max() > SyntheticImages.MAX_SIDE) {
            throw new IllegalArgumentException("image sides must be at most " + SyntheticImages.MAX_SIDE + " px");
        }
        if (baseUrl != null) {
            if (!urlMode) throw new IllegalArgumentException("an image base URL needs the url mode");
            if (!ImageLibrary.isHttpUrl(baseUrl)) {
                throw new IllegalArgumentException("the image base URL must be http(s)://..., not '" + baseUrl + "'");
            }
            baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        }
        if (urlMode && perRequest != null && folder == null) {
            throw new IllegalArgumentException("synthetic images exist only in this process, so they cannot be sent "
                    + "as URLs: use the data mode, or images from a folder you serve (with a base URL)");
        }
        if (urlMode && folder != null && baseUrl == null) {
            throw new IllegalArgumentException("sending a folder's images as URLs needs the base URL that serves it");
        }
    }

    /** N synthetic PNG images of WxH per request. */
    public static ImageOptions synthetic(int perRequest, int width, int height) {
        return new ImageOptions(CountDistribution.fixed(perRequest), LengthDistribution.fixed(width),
                LengthDistribution.fixed(height), ImageFormat.PNG, DEFAULT_QUALITY, DEFAULT_VARIANTS, null, false, null);
    }

    /** Only how a dataset's own images are sent: no image added. */
    public static ImageOptions datasetOnly(boolean urlMode, String baseUrl) {
        return new ImageOptions(null, null, null, null, DEFAULT_QUALITY, DEFAULT_VARIANTS, null, urlMode, baseUrl);
    }

    /** A copy with other synthetic image sides. */
    public ImageOptions withSides(LengthDistribution w, LengthDistribution h) {
        return new ImageOptions(perRequest, w, h, format, quality, variants, folder, urlMode, baseUrl, detail);
    }

    /** A copy in another encoding. */
    public ImageOptions withFormat(ImageFormat f, int q) {
        return new ImageOptions(perRequest, widths, heights, f, q, variants, folder, urlMode, baseUrl, detail);
    }

    /** A copy whose image parts carry OpenAI's {@code detail} ({@code null}: none). */
    public ImageOptions withDetail(String d) {
        return new ImageOptions(perRequest, widths, heights, format, quality, variants, folder, urlMode, baseUrl, d);
    }

    /** {@code WxH} as two fixed sides. */
    public static int[] parseSize(String text) {
        String[] parts = text == null ? new String[0] : text.strip().toLowerCase(java.util.Locale.ROOT).split("x", -1);
        try {
            if (parts.length == 2) {
                int w = Integer.parseInt(parts[0].strip());
                int h = Integer.parseInt(parts[1].strip());
                if (w >= 1 && h >= 1) return new int[] {w, h};
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw new IllegalArgumentException("'" + text + "' is not an image size; use WIDTHxHEIGHT, e.g. 1024x768");
    }

    /** A side: {@code N} or a length distribution ({@link LengthDistribution#FORMS}, in pixels). */
    public static LengthDistribution parseSide(String text) {
        String value = text == null ? "" : text.strip();
        if (value.matches("[0-9]+")) return LengthDistribution.fixed(Integer.parseInt(value));
        return LengthDistribution.parse(value);
    }

    /** What the manifest's generation records. */
    Map<String, Object> parameters() {
        Map<String, Object> map = new LinkedHashMap<>();
        if (perRequest != null) {
            map.put("per_request", perRequest.parameters());
            if (folder != null) {
                map.put("folder", folder.toAbsolutePath().normalize().toString());
            } else {
                map.put("width", widths.parameters());
                map.put("height", heights.parameters());
                map.put("format", format.formatName());
                if (format == ImageFormat.JPEG) map.put("quality", quality);
                map.put("variants", variants);
            }
        }
        map.put("url_mode", urlMode ? "url" : "data");
        if (baseUrl != null) map.put("base_url", baseUrl);
        if (detail != null) map.put("detail", detail);
        return map;
    }
}
