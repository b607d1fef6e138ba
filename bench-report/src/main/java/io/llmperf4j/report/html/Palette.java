package io.llmperf4j.report.html;

/** The report's colours (matplotlib's defaults, so charts look familiar next to a notebook's). */
final class Palette {
    static final String BLUE = "#1f77b4";
    static final String ORANGE = "#ff7f0e";
    static final String GREEN = "#2ca02c";
    static final String RED = "#d62728";
    static final String PURPLE = "#9467bd";
    static final String GREY = "#7f7f7f";

    private Palette() {
    }
}
