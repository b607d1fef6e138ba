package io.llmperf4j.report.metrics;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestTags;

import java.util.List;

/**
 * The images a run sent, and its input tokens both ways: the server's {@code usage.prompt_tokens} (text, image
 * tokens and the chat template, as the model counts them) beside the client tokenizer's count of the text alone.
 * Image tokens are model-specific, so the client never guesses them. The difference per image is the server's image
 * tokens plus every difference between the two counts of the text (its chat template, a server tokenizer other than
 * the client's); when some requests carried no image, their usage is the server's count of text alone, and a
 * least-squares line through it ({@link TextBaseline}) predicts the text's share of the image requests' usage, so
 * only the rest is charged to the images ({@link #imageTokensPerImage}).
 *
 * @param requestsWithImages      recorded requests that carried at least one image
 * @param images                  images those requests sent
 * @param pixels                  their pixels
 * @param bytes                   their encoded bytes (before base64; 0 for URLs the client never read)
 * @param requestsWithServerUsage successful requests with images whose response had {@code usage.prompt_tokens}
 * @param serverPromptTokens      the sum of their {@code usage.prompt_tokens}
 * @param clientTextTokens        the sum of their text tokens by the client tokenizer ({@code number_input_tokens})
 * @param imagesWithServerUsage   images of those requests
 * @param textBaseline            the server's count of the text alone, fitted over the successful requests without
 *                                images that had {@code usage.prompt_tokens}
 * @param detail                  OpenAI's {@code detail} every image part carried ({@code --image-detail}: low, high
 *                                or auto), which sets an image's token cost; null when none was sent (the server's
 *                                default)
 */
public record ImageUsage(int requestsWithImages, long images, long pixels, long bytes, int requestsWithServerUsage,
                         long serverPromptTokens, long clientTextTokens, long imagesWithServerUsage,
                         TextBaseline textBaseline, String detail) {

    /** The settings' metadata key a run echoes {@code --image-detail} in (llmperf's {@code metadata}). */
    public static final String DETAIL_METADATA_KEY = "llmperf4j_image_detail";

    /** The images of {@code run}'s records, with the detail its settings echo. */
    public static ImageUsage of(BenchmarkRun run) {
        return of(run.records(), run.settings().metadata().get(DETAIL_METADATA_KEY));
    }

    /** The images of {@code records}, sent with {@code detail} (null: none). */
    public static ImageUsage of(List<RequestRecord> records, String detail) {
        int withImages = 0;
        long images = 0;
        long pixels = 0;
        long bytes = 0;
        int withUsage = 0;
        long server = 0;
        long client = 0;
        long imagesWithUsage = 0;
        TextBaseline.Fit textOnly = new TextBaseline.Fit();
        for (RequestRecord record : records) {
            RequestTags tags = record.tags();
            if (tags.imageCount() == 0) {
                if (record.succeeded() && record.usagePromptTokens() != null) {
                    textOnly.add(record.numberInputTokens(), record.usagePromptTokens());
                }
                continue;
            }
            withImages++;
            images += tags.imageCount();
            pixels += tags.imagePixels();
            bytes += tags.imageBytes();
            if (record.succeeded() && record.usagePromptTokens() != null) {
                withUsage++;
                server += record.usagePromptTokens();
                client += record.numberInputTokens();
                imagesWithUsage += tags.imageCount();
            }
        }
        return new ImageUsage(withImages, images, pixels, bytes, withUsage, server, client, imagesWithUsage,
                textOnly.line(), detail);
    }

    public boolean any() {
        return requestsWithImages > 0;
    }

    /** Mean server prompt tokens per request with usage, NaN without any. */
    public double serverPromptTokensPerRequest() {
        return requestsWithServerUsage == 0 ? Double.NaN : (double) serverPromptTokens / requestsWithServerUsage;
    }

    /** Mean client text tokens over the same requests, NaN without any. */
    public double clientTextTokensPerRequest() {
        return requestsWithServerUsage == 0 ? Double.NaN : (double) clientTextTokens / requestsWithServerUsage;
    }

    /**
     * (server prompt tokens - client text tokens) per image over the same requests, NaN without any: the image tokens
     * plus the text's template and tokenizer difference, spread over the images.
     */
    public double serverTokensBeyondTextPerImage() {
        return imagesWithServerUsage == 0 ? Double.NaN
                : (double) (serverPromptTokens - clientTextTokens) / imagesWithServerUsage;
    }

    /**
     * The server's image tokens per image: the usage of the requests with images less their text's server count as
     * {@link #textBaseline} predicts it from their client counts, per image. NaN without requests with images and
     * usage, or without a baseline (every request carried an image): then only {@link #serverTokensBeyondTextPerImage}.
     */
    public double imageTokensPerImage() {
        if (imagesWithServerUsage == 0 || textBaseline.requests() == 0) return Double.NaN;
        double text = requestsWithServerUsage * textBaseline.fixedTokens()
                + textBaseline.tokensPerClientToken() * clientTextTokens;
        return (serverPromptTokens - text) / imagesWithServerUsage;
    }
}
