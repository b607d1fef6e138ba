package io.llmperf4j.servermetrics.exposition;

import java.util.Objects;

/**
 * One sample line: {@code name{labels} value [timestamp]}.
 *
 * @param name            the sample's own name, suffix included ({@code x_bucket}, {@code x_total})
 * @param labels          its labels, sorted
 * @param value           the value; NaN and ±infinity are legal
 * @param timestampMillis the server's timestamp in epoch milliseconds (OpenMetrics seconds converted), or null
 *                        when the line has none, which is the usual case
 * @param lineNumber      the 1-based line it was read from, 0 when built in code
 */
public record Sample(String name, Labels labels, double value, Long timestampMillis, int lineNumber) {

    public Sample {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(labels, "labels");
    }

    public Sample(String name, Labels labels, double value) {
        this(name, labels, value, null, 0);
    }
}
