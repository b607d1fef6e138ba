package io.llmperf4j.server;

/**
 * Image tokens as vLLM counts them for Qwen2-VL / Qwen2.5-VL ({@code qwen2_vl.py}, HF {@code smart_resize}): each
 * side is rounded to a multiple of 28 (14-pixel patches merged 2x2), the area shrunk (floor) above
 * {@value #MAX_PIXELS} pixels or grown (ceil) below {@value #MIN_PIXELS}, then one token per 28x28 block, plus 2 for
 * the vision start and end tokens. 256x256 gives 81 + 2, 1280x720 gives 1196 + 2.
 */
final class ImageTokens {
    static final int FACTOR = 28;
    static final long MIN_PIXELS = 3_136;
    static final long MAX_PIXELS = 12_845_056;
    /** {@code <|vision_start|>} and {@code <|vision_end|>} around each image's tokens. */
    static final int MARKERS = 2;

    private ImageTokens() {
    }

    /** Tokens of one image of {@code width x height} pixels, markers included; a size of 0 (unknown) is the smallest. */
    static int of(int width, int height) {
        if (width <= 0 || height <= 0) return (int) (MIN_PIXELS / FACTOR / FACTOR) + MARKERS;
        double h = height;
        double w = width;
        long hBar = Math.max(FACTOR, roundBy(h));
        long wBar = Math.max(FACTOR, roundBy(w));
        if (hBar * wBar > MAX_PIXELS) {
            double beta = Math.sqrt(h * w / MAX_PIXELS);
            hBar = Math.max(FACTOR, floorBy(h / beta));
            wBar = Math.max(FACTOR, floorBy(w / beta));
        } else if (hBar * wBar < MIN_PIXELS) {
            double beta = Math.sqrt(MIN_PIXELS / (h * w));
            hBar = ceilBy(h * beta);
            wBar = ceilBy(w * beta);
        }
        return (int) ((hBar / FACTOR) * (wBar / FACTOR)) + MARKERS;
    }

    /** Python's {@code round(x / 28) * 28}: ties to even. */
    private static long roundBy(double x) {
        return (long) Math.rint(x / FACTOR) * FACTOR;
    }

    private static long floorBy(double x) {
        return (long) Math.floor(x / FACTOR) * FACTOR;
    }

    private static long ceilBy(double x) {
        return (long) Math.ceil(x / FACTOR) * FACTOR;
    }
}
