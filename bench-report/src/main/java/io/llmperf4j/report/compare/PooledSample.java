package io.llmperf4j.report.compare;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * Samples pooled from several requests (e.g. every ITL gap of every successful request), sorted, each remembering
 * the request it came from, so a bootstrap can resample whole requests ({@link Bootstrap#pooledIntervals}).
 *
 * @param sorted   the values, ascending
 * @param request  for each value, the index (0 to {@code requests − 1}) of the request it came from
 * @param requests how many requests contributed at least one value
 */
record PooledSample(double[] sorted, int[] request, int requests) {

    PooledSample {
        Objects.requireNonNull(sorted, "sorted");
        Objects.requireNonNull(request, "request");
        if (sorted.length != request.length) {
            throw new IllegalArgumentException("sorted (" + sorted.length + ") and request (" + request.length
                    + ") must have the same length");
        }
    }

    /** Pools {@code perRequest} (one array per request; empty arrays contribute nothing) and sorts the result. */
    static PooledSample of(double[][] perRequest) {
        int total = 0;
        for (double[] values : perRequest) total += values.length;
        double[] values = new double[total];
        int[] owner = new int[total];
        int next = 0;
        int requests = 0;
        for (double[] of : perRequest) {
            if (of.length == 0) continue;
            for (double v : of) {
                values[next] = v;
                owner[next++] = requests;
            }
            requests++;
        }
        Integer[] order = IntStream.range(0, total).boxed().toArray(Integer[]::new);
        Arrays.sort(order, Comparator.comparingDouble(i -> values[i]));
        double[] sorted = new double[total];
        int[] request = new int[total];
        for (int k = 0; k < total; k++) {
            sorted[k] = values[order[k]];
            request[k] = owner[order[k]];
        }
        return new PooledSample(sorted, request, requests);
    }

    int size() {
        return sorted.length;
    }
}
