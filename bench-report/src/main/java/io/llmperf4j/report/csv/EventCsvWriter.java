package io.llmperf4j.report.csv;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.EventTokenCounts;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.llmperf.LlmperfFileNames;
import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * The per-event CSV ({@code --save-events}): one row per content event of every recorded request, failures
 * included, so inter-token timing can be studied beyond the summary's distributions. RFC 4180 with a header row,
 * UTF-8, like {@link RequestCsvWriter}, and joined to it by {@code client_request_id}.
 *
 * <ul>
 *   <li>{@code event_index}: 0 for the first content event (the one that set TTFT);</li>
 *   <li>{@code offset_s}: arrival time from the request's send, plain decimal seconds with nanosecond digits;</li>
 *   <li>{@code chars}: the UTF-16 length of the event's content, empty when not recorded;</li>
 *   <li>{@code tokens}: client-tokenizer tokens whose text ends in the event (the BOS in none), empty when not
 *       counted (a tokenizer without offsets, or {@code --tokenizer server});</li>
 *   <li>{@code output_tokens}: the event's tokens from the request's output-token source, the counts per-token ITL
 *       divides by ({@link EventTokenCounts}: the server's n spread over the events when n is the server's, else
 *       {@code tokens}); empty when not counted.</li>
 * </ul>
 * Only content events are listed: role, finish, usage and reasoning events carry no content (the first reasoning
 * event's time is {@code ttfrt_s} in the per-request CSV).
 */
public final class EventCsvWriter {

    /** The columns, in order. */
    public static final List<String> HEADER = List.of(
            "client_request_id", "prompt_index", "event_index", "offset_s", "chars", "tokens", "output_tokens");

    private static final int NANOS_DIGITS = 9;
    private static final CSVFormat FORMAT = CSVFormat.RFC4180.builder()
            .setHeader(HEADER.toArray(String[]::new))
            .get();

    private EventCsvWriter() {
    }

    /**
     * Writes {@code <base>_events.csv} of {@code run} into {@code resultsDir}, replacing it, {@code output_tokens} by
     * {@code policy}; returns the file.
     */
    public static Path write(BenchmarkRun run, OutputTokenPolicy policy, Path resultsDir) throws IOException {
        Path file = resultsDir.resolve(LlmperfFileNames.eventsCsvFileName(run.settings()));
        write(run.records(), policy, file);
        return file;
    }

    /** Writes the events of {@code records} to {@code file}, replacing it. */
    public static void write(List<RequestRecord> records, OutputTokenPolicy policy, Path file) throws IOException {
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(records, policy, writer);
        }
    }

    /** Writes the header and one row per content event to {@code out}, which stays open. */
    public static void write(List<RequestRecord> records, OutputTokenPolicy policy, Appendable out)
            throws IOException {
        CSVPrinter printer = new CSVPrinter(out, FORMAT);
        for (RequestRecord record : records) {
            long[] nanos = record.contentEventNanos();
            int[] chars = record.contentEventChars();
            int[] tokens = record.contentEventTokens();
            EventTokenCounts output = policy.eventTokens(record);
            String prompt = Integer.toString(record.promptIndex());
            for (int i = 0; i < nanos.length; i++) {
                printer.printRecord(record.clientRequestId(), prompt, Integer.toString(i),
                        BigDecimal.valueOf(nanos[i], NANOS_DIGITS).toPlainString(),
                        chars.length == nanos.length ? Integer.toString(chars[i]) : "",
                        tokens.length == nanos.length ? Integer.toString(tokens[i]) : "",
                        output.counted() ? Integer.toString(output.count(i)) : "");
            }
        }
        printer.flush();
    }
}
