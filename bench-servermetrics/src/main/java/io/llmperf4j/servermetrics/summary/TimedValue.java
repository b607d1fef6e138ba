package io.llmperf4j.servermetrics.summary;

/**
 * One point of a server chart.
 *
 * @param timeS seconds from the run's start (the client's time axis)
 * @param value the value at that time
 */
public record TimedValue(double timeS, double value) {
}
