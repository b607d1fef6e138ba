package io.llmperf4j.report.metrics;

import io.llmperf4j.model.Percentiles;
import io.llmperf4j.model.RequestRecord;
import java.util.List;

/**
 * Time the recorded requests spent opening new connections (TCP and TLS, {@link RequestRecord#connectNanos()}),
 * over every recorded request, failures included: connect time is part of TTFT, so it is worth knowing when many
 * requests paid it. Percentiles are llmperf4j's one definition ({@link Percentiles}, numpy's linear interpolation
 * over the exact values); NaN when no request opened a connection.
 *
 * @param newConnections requests that opened a new connection
 * @param withoutConnect requests that reused a pooled connection, or never got one
 * @param p50Nanos       median connect time
 * @param p99Nanos       99th percentile
 * @param maxNanos       largest
 */
public record ConnectStats(int newConnections, int withoutConnect, double p50Nanos, double p99Nanos,
                           double maxNanos) {

    public static ConnectStats of(List<RequestRecord> records) {
        double[] connects = records.stream().mapToLong(RequestRecord::connectNanos).filter(n -> n >= 0)
                .mapToDouble(n -> n).sorted().toArray();
        int n = connects.length;
        return new ConnectStats(n, records.size() - n, Percentiles.ofSorted(connects, 50),
                Percentiles.ofSorted(connects, 99), n == 0 ? Double.NaN : connects[n - 1]);
    }
}
