package io.llmperf4j.servermetrics.csv;

import io.llmperf4j.servermetrics.exposition.Exposition;
import io.llmperf4j.servermetrics.exposition.ExpositionFormat;
import io.llmperf4j.servermetrics.exposition.ExpositionParser;
import io.llmperf4j.servermetrics.exposition.MetricFamily;
import io.llmperf4j.servermetrics.exposition.MetricType;
import io.llmperf4j.servermetrics.exposition.Sample;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.io.IOException;
import java.io.Reader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/**
 * Reads a {@code <base>_server_metrics.csv} back into a timeline, so the summary and the charts can be rebuilt from a
 * results directory alone. The file keeps no family types, so every series reads back as untyped under its sample
 * name; the summary and the charts go by sample names and are unaffected.
 */
public final class ServerMetricsCsvReader {

    private static final CSVFormat FORMAT = CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).get();

    private ServerMetricsCsvReader() {
    }

    /**
     * @throws IOException when the file cannot be read, or a row is malformed (the message names the row)
     */
    public static ServerMetricsTimeline read(Path file) throws IOException {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(reader, file.getFileName().toString());
        }
    }

    /** Reads from {@code in}; {@code source} names it in error messages. */
    public static ServerMetricsTimeline read(Reader in, String source) throws IOException {
        ServerMetricsTimeline.Recorder recorder = ServerMetricsTimeline.recorder();
        try (CSVParser parser = FORMAT.parse(in)) {
            if (!parser.getHeaderNames().equals(ServerMetricsCsvWriter.HEADER)) {
                throw new IOException(source + ": header " + parser.getHeaderNames() + " is not "
                        + ServerMetricsCsvWriter.HEADER);
            }
            String scrapeTime = null;
            List<Sample> samples = new ArrayList<>();
            for (CSVRecord row : parser) {
                try {
                    if (row.size() != ServerMetricsCsvWriter.HEADER.size()) {
                        throw new IOException(row.size() + " fields, not " + ServerMetricsCsvWriter.HEADER.size());
                    }
                    String time = row.get(0);
                    long offsetNanos = nanos(time);
                    if (!time.equals(scrapeTime)) {
                        flush(recorder, scrapeTime, samples);
                        scrapeTime = time;
                    }
                    if (row.get(1).equals(ServerMetricsCsvWriter.GAP_NAME)) {
                        recorder.recordFailure(offsetNanos, 0, ExpositionParser.parseLabels(row.get(2)).get("reason"));
                        scrapeTime = null;
                        continue;
                    }
                    Double value = ExpositionParser.parseFloatOrNull(row.get(3));
                    if (value == null) throw new IOException("invalid value '" + row.get(3) + "'");
                    samples.add(new Sample(row.get(1), ExpositionParser.parseLabels(row.get(2)), value));
                } catch (IOException | RuntimeException e) {
                    throw new IOException(source + " row " + row.getRecordNumber() + ": " + e.getMessage(), e);
                }
            }
            flush(recorder, scrapeTime, samples);
        }
        return recorder.snapshot();
    }

    private static void flush(ServerMetricsTimeline.Recorder recorder, String time, List<Sample> samples)
            throws IOException {
        if (time == null || samples.isEmpty()) return;
        Map<String, List<Sample>> byName = new LinkedHashMap<>();
        for (Sample s : samples) byName.computeIfAbsent(s.name(), k -> new ArrayList<>()).add(s);
        List<MetricFamily> families = new ArrayList<>(byName.size());
        byName.forEach((name, list) -> families.add(new MetricFamily(name, MetricType.UNTYPED, null, null, list)));
        recorder.recordScrape(nanos(time), 0, new Exposition(ExpositionFormat.PROMETHEUS_TEXT_0_0_4, families));
        samples.clear();
    }

    private static long nanos(String seconds) throws IOException {
        try {
            return new BigDecimal(seconds).movePointRight(9).longValueExact();
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IOException("invalid time_s '" + seconds + "'");
        }
    }
}
