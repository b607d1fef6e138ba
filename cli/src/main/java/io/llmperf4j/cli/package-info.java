/**
 * The {@code llmperf4j} command line: picocli commands and their flag groups, the checks and messages of bad input
 * (exit 2), turned into a {@code RunRequest} for {@code bench-run}. No run logic lives here.
 */
package io.llmperf4j.cli;
