package io.llmperf4j.servermetrics.timeline;

import java.util.Arrays;

/**
 * One scrape: when it happened and, when it succeeded, the value of every series it served; when it failed, why.
 * Values are kept by series id ({@link Series#id()}), ascending, so a lookup is a binary search.
 */
public final class Scrape {

    private final long offsetNanos;
    private final long durationNanos;
    private final String failure;
    private final int[] seriesIds;
    private final double[] values;

    Scrape(long offsetNanos, long durationNanos, String failure, int[] seriesIds, double[] values) {
        this.offsetNanos = offsetNanos;
        this.durationNanos = durationNanos;
        this.failure = failure;
        this.seriesIds = seriesIds;
        this.values = values;
    }

    /**
     * When the scrape happened, from the run's start: for a successful one, the midpoint between sending the request
     * and the answer (when the server's values were most likely read); for a failed one, the instant it was sent, so
     * a scrape sent inside a window that hung for its whole timeout is that window's gap ({@link #failedAtNanos()}
     * says when it failed).
     */
    public long offsetNanos() {
        return offsetNanos;
    }

    /** For a failed scrape, when it failed, from the run's start: the instant it was sent plus its duration. */
    public long failedAtNanos() {
        return offsetNanos + durationNanos;
    }

    /** From sending the request to the whole answer (or the failure). */
    public long durationNanos() {
        return durationNanos;
    }

    /** True when the scrape answered with valid exposition text. */
    public boolean ok() {
        return failure == null;
    }

    /** Why the scrape failed (timeout, HTTP status, refused connection, malformed text), or null when it succeeded. */
    public String failure() {
        return failure;
    }

    /** How many series values it holds (0 for a failed scrape). */
    public int size() {
        return seriesIds.length;
    }

    /** The series id of the i-th value. */
    public int seriesId(int i) {
        return seriesIds[i];
    }

    /** The i-th value. */
    public double value(int i) {
        return values[i];
    }

    /** True when this scrape served the series. */
    public boolean has(int seriesId) {
        return Arrays.binarySearch(seriesIds, seriesId) >= 0;
    }

    /** The value this scrape served for the series, or {@code missing} when it did not serve it. */
    public double valueOr(int seriesId, double missing) {
        int i = Arrays.binarySearch(seriesIds, seriesId);
        return i >= 0 ? values[i] : missing;
    }
}
