/**
 * llmperf4j's HTML report: one self-contained HTML5 file per run ({@link io.llmperf4j.report.html.HtmlReport}),
 * inline CSS and inline SVG charts drawn by {@link io.llmperf4j.report.html.SvgChart}, no script and nothing
 * fetched from elsewhere. The data behind the charts is computed by {@link io.llmperf4j.report.html.ReportSeries};
 * the page reads a run in memory or a results directory alone ({@link io.llmperf4j.report.html.ReportData#read}).
 * A load sweep has its own page, read from its folder ({@link io.llmperf4j.report.html.SweepData}), sweep first;
 * iterations and comparisons of models have theirs too; {@link io.llmperf4j.report.html.HtmlReport#fromResultsDir}
 * tells them apart by the files in the folder.
 */
package io.llmperf4j.report.html;
