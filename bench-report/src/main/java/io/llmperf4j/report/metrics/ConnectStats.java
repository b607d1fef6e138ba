package io.llmperf4j.report.metrics;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.Percentiles;
import io.llmperf4j.model.RequestRecord;
import java.util.Arrays;
import java.util.List;

/**
 * Time spent opening connections. Inside the measurement: the recorded requests that opened a new connection (TCP
 * and TLS, {@link RequestRecord#connectNanos()}), over every recorded request, failures included; that connect time
 * is part of their TTFT, so it is worth knowing when many requests paid it. Before it: the connections opened
 * ahead of the clock ({@link BenchmarkRun#preconnectNanos()}), which no request paid. Percentiles are llmperf4j's
 * one definition ({@link Percentiles}, numpy's linear interpolation over the exact values); NaN when there is none.
 *
 * @param newConnections        requests that opened a new connection
 * @param withoutConnect        requests that reused a pooled connection, or never got one
 * @param p50Nanos              median connect time of those requests
 * @param p99Nanos              99th percentile
 * @param maxNanos              largest
 * @param preconnected          connections opened before the measured window
 * @param preconnectP50Nanos    their median connect time
 * @param preconnectP99Nanos    99th percentile
 * @param preconnectMaxNanos    largest
 */
public record ConnectStats(int newConnections, int withoutConnect, double p50Nanos, double p99Nanos,
                           double maxNanos, int preconnected, double preconnectP50Nanos, double preconnectP99Nanos,
                           double preconnectMaxNanos) {

    /** The connections of {@code run}: its requests' and those opened before its clock. */
    public static ConnectStats of(BenchmarkRun run) {
        return of(run.records(), run.preconnectNanos());
    }

    /** The requests' connections, none opened before the clock. */
    public static ConnectStats of(List<RequestRecord> records) {
        return of(records, new long[0]);
    }

    private static ConnectStats of(List<RequestRecord> records, long[] preconnect) {
        double[] connects = records.stream().mapToLong(RequestRecord::connectNanos).filter(n -> n >= 0)
                .mapToDouble(n -> n).sorted().toArray();
        double[] ahead = Arrays.stream(preconnect).filter(n -> n >= 0).mapToDouble(n -> n).sorted().toArray();
        int n = connects.length;
        return new ConnectStats(n, records.size() - n, Percentiles.ofSorted(connects, 50),
                Percentiles.ofSorted(connects, 99), n == 0 ? Double.NaN : connects[n - 1], ahead.length,
                Percentiles.ofSorted(ahead, 50), Percentiles.ofSorted(ahead, 99),
                ahead.length == 0 ? Double.NaN : ahead[ahead.length - 1]);
    }
}
