package io.llmperf4j.report.metrics;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestTags;

import java.util.List;

/**
 * The images a run sent, and its input tokens both ways: the server's {@code usage.prompt_tokens} (text, image
 * tokens and the chat template, as the model counts them) beside the client tokenizer's count of the text alone.
 * Image tokens are model-specific, so the client never guesses them; the difference per image is the server's
 * image tokens plus the template.
 *
 * @param requestsWithImages      recorded requests that carried at least one image
 * @param images                  images those requests sent
 * @param pixels                  their pixels
 * @param bytes                   their encoded bytes (before base64; 0 for URLs the client never read)
 * @param requestsWithServerUsage successful requests with images whose response had {@code usage.prompt_tokens}
 * @param serverPromptTokens      the sum of their {@code usage.prompt_tokens}
 * @param clientTextTokens        the sum of their text tokens by the client tokenizer ({@code number_input_tokens})
 * @param imagesWithServerUsage   images of those requests
 * @param detail                  OpenAI's {@code detail} every image part carried ({@code --image-detail}: low, high
 *                                or auto), which sets an image's token cost; null when none was sent (the server's
 *                                default)
 */
public record ImageUsage(int requestsWithImages, long images, long pixels, long bytes, int requestsWithServerUsage,
                         long serverPromptTokens, long clientTextTokens, long imagesWithServerUsage, String detail) {

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
        for (RequestRecord record : records) {
            RequestTags tags = record.tags();
            if (tags.imageCount() == 0) continue;
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
        return new ImageUsage(withImages, images, pixels, bytes, withUsage, server, client, imagesWithUsage, detail);
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

    /** (server prompt tokens - client text tokens) per image over the same requests, NaN without any. */
    public double serverTokensBeyondTextPerImage() {
        return imagesWithServerUsage == 0 ? Double.NaN
                : (double) (serverPromptTokens - clientTextTokens) / imagesWithServerUsage;
    }
}
