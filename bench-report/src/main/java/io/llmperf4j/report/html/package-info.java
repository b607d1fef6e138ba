/**
 * llmperf4j's HTML report: one self-contained HTML5 file per run ({@link io.llmperf4j.report.html.HtmlReport}),
 * inline CSS and inline SVG charts drawn by {@link io.llmperf4j.report.html.SvgChart}, no script and nothing
 * fetched from elsewhere. The data behind the charts is computed by {@link io.llmperf4j.report.html.ReportSeries};
 * the page reads a run in memory or a results directory alone ({@link io.llmperf4j.report.html.ReportData#read}).
 * An optional load sweep is described by {@link io.llmperf4j.report.html.SweepReport}.
 */
package io.llmperf4j.report.html;
