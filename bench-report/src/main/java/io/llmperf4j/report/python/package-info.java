/** Python-compatible output for llmperf's files: float repr and {@code json.dump} formatting. */
package io.llmperf4j.report.python;
