package io.llmperf4j.report.html;

import java.util.Objects;

/**
 * What the HTML report shows beyond the run itself.
 *
 * @param cdfScale the x scale of the TTFT and E2E CDFs
 */
public record HtmlReportOptions(CdfScale cdfScale) {

    /** How the latency CDFs' x axis is scaled. */
    public enum CdfScale {
        /** Log when the values span at least {@value HtmlReportOptions#AUTO_LOG_RATIO}× (max / min), else linear. */
        AUTO,
        LINEAR,
        LOG
    }

    /** Max / min ratio from which {@link CdfScale#AUTO} draws a log axis. */
    public static final double AUTO_LOG_RATIO = 50;

    /** CDF scale {@link CdfScale#AUTO}. */
    public static final HtmlReportOptions DEFAULT = new HtmlReportOptions(CdfScale.AUTO);

    public HtmlReportOptions {
        Objects.requireNonNull(cdfScale, "cdfScale");
    }

    public HtmlReportOptions withCdfScale(CdfScale newScale) {
        return new HtmlReportOptions(newScale);
    }
}
