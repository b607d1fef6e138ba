/** pandas and numpy statistics reproduced to the last bit, for llmperf's files ({@code PandasStats}). */
package io.llmperf4j.report.stats;
