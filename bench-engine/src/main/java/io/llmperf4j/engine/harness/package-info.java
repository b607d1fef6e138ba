/**
 * JMH-style measurement at one load point: warmup and measurement iterations (fixed-duration windows of continuous
 * load), forks (fresh clients), score ± 99.9 % Student-t error, JMH's text and JSON formats. Results
 * ({@link io.llmperf4j.engine.harness.HarnessResult} and below) are data; the formats read only them.
 */
package io.llmperf4j.engine.harness;
