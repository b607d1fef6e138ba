/**
 * llmperf's own files and console block, reproduced byte for byte ({@code <base>_summary.json},
 * {@code <base>_individual_responses.json}): llmperf's definitions and pandas statistics, its known defects kept on
 * purpose. Nothing of llmperf4j's own metrics lives here.
 */
package io.llmperf4j.report.llmperf;
