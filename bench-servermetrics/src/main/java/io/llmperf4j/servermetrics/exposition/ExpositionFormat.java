package io.llmperf4j.servermetrics.exposition;

import java.util.Locale;

/** The two text formats a {@code /metrics} endpoint serves. */
public enum ExpositionFormat {

    /** Prometheus text format 0.0.4: {@code text/plain; version=0.0.4}. Timestamps in milliseconds. */
    PROMETHEUS_TEXT_0_0_4("text/plain; version=0.0.4; charset=utf-8"),

    /** OpenMetrics 1.0 text: {@code application/openmetrics-text; version=1.0.0}. Ends with {@code # EOF}. */
    OPENMETRICS_1_0("application/openmetrics-text; version=1.0.0; charset=utf-8");

    /** The content type a server sends with this format. */
    public final String contentType;

    ExpositionFormat(String contentType) {
        this.contentType = contentType;
    }

    /**
     * The format a {@code Content-Type} header names: OpenMetrics for {@code application/openmetrics-text},
     * 0.0.4 for {@code text/plain} (with or without a version); null for anything else (HTML, JSON) and for a
     * missing header.
     */
    public static ExpositionFormat fromContentType(String contentType) {
        if (contentType == null) return null;
        String mediaType = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        return switch (mediaType) {
            case "application/openmetrics-text" -> OPENMETRICS_1_0;
            case "text/plain" -> PROMETHEUS_TEXT_0_0_4;
            default -> null;
        };
    }

    /** The format of a body served without a usable content type: OpenMetrics iff its last line is {@code # EOF}. */
    public static ExpositionFormat detect(String text) {
        String trimmed = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        int lastLine = trimmed.lastIndexOf('\n') + 1;
        return trimmed.substring(lastLine).equals("# EOF") ? OPENMETRICS_1_0 : PROMETHEUS_TEXT_0_0_4;
    }
}
