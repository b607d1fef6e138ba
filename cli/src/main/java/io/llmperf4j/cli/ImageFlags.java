package io.llmperf4j.cli;

import io.llmperf4j.datasets.images.CountDistribution;
import io.llmperf4j.datasets.images.ImageFormat;
import io.llmperf4j.datasets.images.ImageOptions;
import io.llmperf4j.tokenize.prompt.LengthDistribution;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** Images sent with every request, for vision-language models (issue 20, docs/images.md). A picocli arg group. */
final class ImageFlags {
    @Option(names = "--images-per-request", paramLabel = "N|DIST",
            description = "Attach images to every request: N, or fixed:N | uniform:MIN,MAX | normal:MEAN,SD[,MIN,MAX]. "
                    + "Synthetic seeded noise images (their bytes depend only on the seed and the size), or the "
                    + "files of --image-dir. Needs --llm-api openai or anthropic.")
    String perRequest;

    @Option(names = "--image-size", paramLabel = "WxH",
            description = "Size of the synthetic images in pixels (default 512x512).")
    String size;

    @Option(names = "--image-width", paramLabel = "N|DIST",
            description = "Width of the synthetic images: N or a distribution (same forms as --input-lengths).")
    String width;

    @Option(names = "--image-height", paramLabel = "N|DIST",
            description = "Height of the synthetic images: N or a distribution.")
    String height;

    @Option(names = "--image-format", paramLabel = "png|jpeg",
            completionCandidates = CompletionValues.ImageFormats.class,
            description = "Encoding of the synthetic images (default png).")
    String format;

    @Option(names = "--image-quality", paramLabel = "1-100",
            description = "JPEG quality of the synthetic images (default 85).")
    Integer quality;

    @Option(names = "--image-variants", paramLabel = "K",
            description = "Distinct synthetic images per size (default 8): requests cycle through K seeds, each "
                    + "image made once and shared. Servers cache repeated images; raise K to send fewer repeats.")
    Integer variants;

    @Option(names = "--image-dir", paramLabel = "DIR",
            description = "Send the PNG, JPEG and GIF files of DIR (name order, round robin) instead of synthetic "
                    + "images; --images-per-request defaults to 1.")
    Path dir;

    @Option(names = "--image-url-mode", paramLabel = "data|url",
            completionCandidates = CompletionValues.ImageUrlModes.class,
            description = "data (default): the image bytes inline (base64 data: URL; Anthropic base64 source). "
                    + "url: http(s) URLs the server fetches: a dataset's URLs, or --image-base-url + file name.")
    String urlMode;

    @Option(names = "--image-base-url", paramLabel = "URL",
            description = "With --image-url-mode url: where you serve --image-dir (or the dataset's image files); "
                    + "each image is sent as URL/<its path>.")
    String baseUrl;

    @Option(names = "--image-detail", paramLabel = "low|high|auto",
            completionCandidates = CompletionValues.ImageDetails.class,
            description = "OpenAI's image_url detail on every image part: it sets the image's token cost on OpenAI "
                    + "and compatible vision servers. Default: none sent (the server's own default). --llm-api "
                    + "openai only.")
    String detail;

    /** The image options, or null when no image flag was given. */
    ImageOptions resolve() {
        ImageOptions options = withoutDetail();
        String d = detail();
        if (d == null) return options;
        return options == null ? ImageOptions.datasetOnly(false, null).withDetail(d) : options.withDetail(d);
    }

    /** The --image-detail value, or null when none was given. */
    private String detail() {
        if (detail == null) return null;
        String d = detail.strip().toLowerCase(Locale.ROOT);
        if (!ImageOptions.DETAILS.contains(d)) {
            throw new UsageException("--image-detail must be low, high or auto (got '" + detail + "')");
        }
        return d;
    }

    private ImageOptions withoutDetail() {
        boolean url = mode();
        boolean synthetic = size != null || width != null || height != null || format != null || quality != null
                || variants != null;
        if (perRequest == null && dir == null) {
            if (synthetic) {
                throw new UsageException("--image-size, --image-width/-height, --image-format, --image-quality and "
                        + "--image-variants shape synthetic images: give --images-per-request too");
            }
            if (urlMode == null && baseUrl == null) return null;
            return options(() -> ImageOptions.datasetOnly(url, baseUrl));
        }
        if (dir != null) {
            if (synthetic) {
                throw new UsageException("--image-dir sends its files as they are: drop --image-size, --image-width/"
                        + "-height, --image-format, --image-quality and --image-variants");
            }
            if (!Files.isDirectory(dir)) throw new UsageException("--image-dir " + dir + " is not a folder");
        }
        if (size != null && (width != null || height != null)) {
            throw new UsageException("give --image-size WxH or --image-width/--image-height, not both");
        }
        CountDistribution count = perRequest == null ? CountDistribution.fixed(1) : parse("--images-per-request",
                () -> CountDistribution.parse(perRequest));
        LengthDistribution w = null;
        LengthDistribution h = null;
        if (size != null) {
            int[] wh = parse("--image-size", () -> ImageOptions.parseSize(size));
            w = LengthDistribution.fixed(wh[0]);
            h = LengthDistribution.fixed(wh[1]);
        }
        if (width != null) w = parse("--image-width", () -> ImageOptions.parseSide(width));
        if (height != null) h = parse("--image-height", () -> ImageOptions.parseSide(height));
        ImageFormat f = format == null ? ImageFormat.PNG : parse("--image-format", () -> ImageFormat.parse(format));
        if (quality != null && f != ImageFormat.JPEG) throw new UsageException("--image-quality applies to --image-format jpeg");
        LengthDistribution widths = w;
        LengthDistribution heights = h;
        return options(() -> new ImageOptions(count, widths, heights, f,
                quality == null ? ImageOptions.DEFAULT_QUALITY : quality,
                variants == null ? ImageOptions.DEFAULT_VARIANTS : variants, dir, url, baseUrl));
    }

    private boolean mode() {
        if (urlMode == null) return false;
        return switch (urlMode.strip().toLowerCase(Locale.ROOT)) {
            case "data" -> false;
            case "url" -> true;
            default -> throw new UsageException("--image-url-mode must be data or url (got '" + urlMode + "')");
        };
    }

    private static <T> T parse(String flag, java.util.function.Supplier<T> parser) {
        try {
            return parser.get();
        } catch (IllegalArgumentException e) {
            throw new UsageException(flag + ": " + e.getMessage());
        }
    }

    private static ImageOptions options(java.util.function.Supplier<ImageOptions> parser) {
        try {
            return parser.get();
        } catch (IllegalArgumentException e) {
            throw new UsageException("images: " + e.getMessage());
        }
    }
}
