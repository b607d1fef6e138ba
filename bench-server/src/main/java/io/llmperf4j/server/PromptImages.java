package io.llmperf4j.server;

import java.util.Base64;
import java.util.Locale;

import static io.llmperf4j.server.InvalidRequestException.badRequest;

/**
 * The images of a generation request: how many, their pixels, and their tokens by {@link ImageTokens}. Inline
 * images ({@code data:} URLs, Anthropic base64 sources) are measured from their PNG, JPEG or GIF header; http(s)
 * URLs are never fetched and count as the smallest image (size unknown, 0 pixels).
 *
 * @param count  images in the request
 * @param pixels pixels of the inline images
 * @param tokens image tokens, vision markers included; part of {@code usage.prompt_tokens}
 */
record PromptImages(int count, long pixels, int tokens) {
    static final PromptImages NONE = new PromptImages(0, 0, 0);
    /** Enough base64 to reach a JPEG's frame header past large EXIF blocks (64 KiB segments). */
    private static final int HEADER_CHARS = 4 * 1024 * 96;

    PromptImages plus(int width, int height) {
        long p = width > 0 && height > 0 ? (long) width * height : 0;
        return new PromptImages(count + 1, pixels + p, tokens + ImageTokens.of(width, height));
    }

    /** Adds an OpenAI {@code image_url} URL: a {@code data:} URL is measured, an http(s) URL is not fetched. */
    PromptImages plusUrl(String url, String field) throws InvalidRequestException {
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.startsWith("http://") || lower.startsWith("https://")) return plus(0, 0);
        int comma = url.indexOf(',');
        if (!lower.startsWith("data:") || comma < 0 || !url.substring(0, comma).toLowerCase(Locale.ROOT)
                .endsWith(";base64")) {
            throw badRequest("image_url must be an http(s) URL or a base64 data: URL.", field);
        }
        return plusBase64(url, comma + 1, field);
    }

    /** Adds a base64 image whose text starts at {@code from}. */
    PromptImages plusBase64(String text, int from, String field) throws InvalidRequestException {
        int end = Math.min(text.length(), from + HEADER_CHARS);
        end = from + (end - from) / 4 * 4;
        byte[] head;
        try {
            head = Base64.getDecoder().decode(text.substring(from, end));
        } catch (IllegalArgumentException e) {
            throw badRequest("An image is not valid base64: " + e.getMessage(), field);
        }
        int[] size = size(head);
        if (size == null) throw badRequest("An image is not a PNG, JPEG or GIF image (or is truncated).", field);
        return plus(size[0], size[1]);
    }

    /** {width, height} from a PNG, GIF or JPEG header, or null. */
    static int[] size(byte[] b) {
        if (b.length >= 24 && (b[0] & 0xFF) == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G') {
            return new int[] {int32(b, 16), int32(b, 20)};
        }
        if (b.length >= 10 && b[0] == 'G' && b[1] == 'I' && b[2] == 'F') {
            return new int[] {(b[6] & 0xFF) | (b[7] & 0xFF) << 8, (b[8] & 0xFF) | (b[9] & 0xFF) << 8};
        }
        if (b.length >= 4 && (b[0] & 0xFF) == 0xFF && (b[1] & 0xFF) == 0xD8) {
            int i = 2;
            while (i + 9 < b.length) {
                if ((b[i] & 0xFF) != 0xFF) return null;
                int marker = b[i + 1] & 0xFF;
                if (marker == 0xFF) { // fill byte
                    i++;
                    continue;
                }
                int length = (b[i + 2] & 0xFF) << 8 | (b[i + 3] & 0xFF);
                boolean frame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
                if (frame) {
                    return new int[] {(b[i + 7] & 0xFF) << 8 | (b[i + 8] & 0xFF), (b[i + 5] & 0xFF) << 8 | (b[i + 6] & 0xFF)};
                }
                i += 2 + length;
            }
        }
        return null;
    }

    private static int int32(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | (b[at + 3] & 0xFF);
    }
}
