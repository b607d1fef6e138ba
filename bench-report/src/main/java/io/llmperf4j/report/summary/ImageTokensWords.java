package io.llmperf4j.report.summary;

/**
 * What one image cost in input tokens, in the same words on the console's Images line and the page's Images row: the
 * image tokens alone when requests without images gave the server's count of the text, otherwise the difference per
 * image with what it includes besides the image tokens.
 */
public final class ImageTokensWords {

    private ImageTokensWords() {
    }

    /** E.g. "210.3 image tokens per image (the text's server count from the 5 requests without images)". */
    public static String perImage(SummaryDocument.ImagesJson images) {
        Double imageTokens = images.imageTokensPerImage();
        Integer textOnly = images.textOnlyRequestsWithServerUsage();
        if (imageTokens != null && textOnly != null) {
            return SummaryConsoleReport.fixed(imageTokens, 1) + " image tokens per image (the text's server count from "
                    + (textOnly == 1 ? "the request" : "the " + textOnly + " requests") + " without images)";
        }
        Double beyond = images.serverTokensBeyondTextPerImage();
        if (beyond == null) return "- more per image";
        // a summary written before the baseline (report DIR) cannot tell whether requests without images were sent
        return SummaryConsoleReport.fixed(beyond, 1) + " more per image (image tokens plus the text's chat template "
                + "and tokenizer difference" + (textOnly == null ? ")" : ": no request without images to tell them "
                + "apart)");
    }
}
