/**
 * llmperf's correctness test ({@code llm_correctness.py}): checking each answer for the number the prompt spelled
 * out, the printed lines and block, and the two result files, key for key and byte for byte as llmperf writes them.
 */
package io.llmperf4j.report.correctness;
