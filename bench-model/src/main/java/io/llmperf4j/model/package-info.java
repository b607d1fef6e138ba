/**
 * The records every module shares, JDK only: what to send ({@code RequestSpec}), what was measured of one request
 * ({@code RequestRecord}, {@code RequestPhases}, {@code Failure}), a whole run ({@code BenchmarkRun}), and the few
 * rules that must be the same everywhere: the one percentile definition ({@code Percentiles}) and the output-token
 * policy ({@code OutputTokenPolicy}).
 */
package io.llmperf4j.model;
