/**
 * A run's result files as strategies: each {@link io.llmperf4j.report.output.ResultFile} writes one file (or
 * llmperf's trio) of a level; {@link io.llmperf4j.report.output.ResultFiles} is the set a run chooses once and writes
 * with one call per level, on one machine or a cluster alike. Beside them, the files of a whole load run as plain
 * documents: {@link io.llmperf4j.report.output.OpenLoopFile}, {@link io.llmperf4j.report.output.SweepFiles},
 * {@link io.llmperf4j.report.output.IterationsFile}, {@link io.llmperf4j.report.output.ComparisonFile}. An output
 * format goes here.
 */
package io.llmperf4j.report.output;
