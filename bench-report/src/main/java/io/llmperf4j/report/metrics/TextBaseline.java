package io.llmperf4j.report.metrics;

/**
 * The server's count of a request's text as a line in the client tokenizer's count, fitted by least squares over
 * requests that sent text alone:
 * {@code usage.prompt_tokens ≈ fixedTokens + tokensPerClientToken · number_input_tokens}.
 * The fixed part is what every request adds (the chat template), the slope the two tokenizers' ratio; a line needs
 * both, since llmperf's prompts vary in length (a per-request difference misses the ratio, a per-token ratio the
 * template). When the requests had one text length (llmperf's {@code --stddev-input-tokens 0}) the slope cannot be
 * told: it is taken as 1, so the line is the mean difference per request.
 *
 * @param requests             requests fitted; 0 for none (the other values NaN)
 * @param fixedTokens          the line's intercept: server tokens per request beside the text
 * @param tokensPerClientToken its slope: server tokens per client text token
 */
public record TextBaseline(int requests, double fixedTokens, double tokensPerClientToken) {

    /** No requests with text alone. */
    public static final TextBaseline NONE = new TextBaseline(0, Double.NaN, Double.NaN);

    /** Sums for the fit, one request at a time, of the counts less the first request's (exact for equal ones). */
    static final class Fit {
        private int n;
        private long x0;
        private long y0;
        private double sumX;
        private double sumY;
        private double sumXx;
        private double sumXy;

        void add(long clientTextTokens, long serverPromptTokens) {
            if (n == 0) {
                x0 = clientTextTokens;
                y0 = serverPromptTokens;
            }
            n++;
            double x = clientTextTokens - x0;
            double y = serverPromptTokens - y0;
            sumX += x;
            sumY += y;
            sumXx += x * x;
            sumXy += x * y;
        }

        TextBaseline line() {
            if (n == 0) return NONE;
            double meanX = sumX / n;
            double meanY = sumY / n;
            double sxx = sumXx - n * meanX * meanX;
            // one length (or one request): no slope to fit (distinct whole counts give sxx >= 0.5)
            double slope = sxx < 0.25 ? 1.0 : (sumXy - n * meanX * meanY) / sxx;
            return new TextBaseline(n, y0 + meanY - slope * (x0 + meanX), slope);
        }
    }
}
