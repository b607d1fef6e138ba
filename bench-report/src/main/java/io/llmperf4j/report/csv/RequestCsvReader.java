package io.llmperf4j.report.csv;

import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestPhases;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestTags;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/**
 * Reads {@link RequestCsvWriter}'s per-request CSV back into records, error messages included (for comparisons,
 * and the report's fallback when there is no {@code requests.jsonl}). What the CSV does not hold stays unknown: no content event
 * times, no generated text, no SSE event count. The timing phases come back from their columns (the connection-ready
 * stamp as the wait plus the connect); a file written before {@link RequestCsvWriter#LATER_COLUMNS} existed reads
 * as if they were empty, so its phases and last content time are unknown (-1). The image columns, when present, come
 * back as the record's image tags, and {@code session_id}, {@code turn} and {@code cached_tokens} as its session tags,
 * with {@code session_turns} and {@code rest_of} when present ({@link RequestCsvWriter#SESSION_COLUMNS}: a failed
 * session's rest counts in the session it continues), and {@code ignored_stream_lines} and {@code ignored_stream_line}
 * as its stream's ({@link RequestCsvWriter#IGNORED_STREAM_COLUMNS}); a file without them reads as before they were
 * written (0 turns known, no rest, no ignored lines).
 */
public final class RequestCsvReader {

    private static final CSVFormat FORMAT = CSVFormat.RFC4180.builder()
            .setHeader()
            .setSkipHeaderRecord(true)
            .get();

    private RequestCsvReader() {
    }

    /** The records of {@code file}; an IOException names the file, data row and column of anything malformed. */
    public static List<RequestRecord> read(Path file) throws IOException {
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return read(reader, file.toString());
        }
    }

    /** The records of CSV text; {@code source} names it in error messages. */
    public static List<RequestRecord> read(Reader reader, String source) throws IOException {
        List<RequestRecord> records = new ArrayList<>();
        try (CSVParser parser = CSVParser.parse(reader, FORMAT)) {
            List<String> header = parser.getHeaderNames();
            List<String> missing = RequestCsvWriter.HEADER.stream()
                    .filter(c -> !header.contains(c) && !RequestCsvWriter.LATER_COLUMNS.contains(c)).toList();
            if (!missing.isEmpty()) {
                throw new IOException(source + " is not a llmperf4j per-request CSV: missing column"
                        + (missing.size() == 1 ? " " : "s ") + String.join(", ", missing));
            }
            for (CSVRecord row : parser) records.add(toRecord(new Row(row, source)));
        } catch (IllegalStateException | UncheckedIOException e) {
            throw new IOException(source + ": malformed CSV: " + e.getMessage(), e);
        }
        return records;
    }

    /**
     * Each request's {@value RequestCsvWriter#SEND_LAG_COLUMN} in ns by {@code client_request_id}; empty when the file
     * has no such column (a run without a schedule).
     */
    public static java.util.Map<String, Long> readSendLags(Path file) throws IOException {
        java.util.Map<String, Long> lags = new java.util.HashMap<>();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8);
             CSVParser parser = CSVParser.parse(reader, FORMAT)) {
            if (!parser.getHeaderNames().contains(RequestCsvWriter.SEND_LAG_COLUMN)) return lags;
            for (CSVRecord row : parser) {
                String lag = row.get(RequestCsvWriter.SEND_LAG_COLUMN);
                if (lag == null || lag.isBlank()) continue;
                try {
                    lags.put(row.get("client_request_id"), new BigDecimal(lag.strip()).movePointRight(9)
                            .setScale(0, RoundingMode.HALF_UP).longValueExact());
                } catch (NumberFormatException | ArithmeticException e) {
                    throw new IOException(file + ": " + RequestCsvWriter.SEND_LAG_COLUMN + " '" + lag
                            + "' is not a number of seconds", e);
                }
            }
        } catch (IllegalStateException | UncheckedIOException e) {
            throw new IOException(file + ": malformed CSV: " + e.getMessage(), e);
        }
        return lags;
    }

    private static RequestRecord toRecord(Row r) throws IOException {
        Failure failure = null;
        String kind = r.text("error_kind");
        if (!kind.isEmpty()) {
            FailureKind failureKind;
            try {
                failureKind = FailureKind.valueOf(kind);
            } catch (IllegalArgumentException e) {
                throw r.error("error_kind", kind, "is not one of " + Arrays.toString(FailureKind.values()));
            }
            failure = new Failure(failureKind, r.integer("error_code", -1), r.text("error_msg"));
        }
        String serverId = r.text("server_response_id");
        String finish = r.text("finish_reason");
        String worker = r.text(RequestCsvWriter.WORKER_COLUMN);
        long connect = r.scaled("connect_s", 9, RequestRecord.NEVER);
        long wait = r.scaled("connection_wait_s", 9, RequestRecord.NEVER);
        RequestPhases phases = new RequestPhases(wait < 0 ? -1 : wait + Math.max(0, connect),
                r.scaled("tls_s", 9, -1), r.scaled("request_written_s", 9, -1),
                r.scaled("response_headers_s", 9, -1));
        RequestRecord record = new RequestRecord(r.integer("prompt_index", -1), r.text("client_request_id"),
                serverId.isEmpty() ? null : serverId, r.scaled("start_time_epoch_s", 6, 0L),
                r.scaled("ttft_s", 9, RequestRecord.NEVER), r.scaled("last_content_s", 9, RequestRecord.NEVER),
                r.scaled("end_to_end_latency_s", 9, RequestRecord.NEVER), 0, new long[0], "",
                r.integer("number_input_tokens", 0), r.integer("max_tokens", 0),
                r.integer("output_tokens_client", -1), r.boxed("prompt_tokens_server"),
                r.boxed("output_tokens_server"), finish.isEmpty() ? null : finish, failure, null, null,
                r.scaled("ttfrt_s", 9, RequestRecord.NEVER), connect, null);
        if (phases.known() || phases.tlsNanos() >= 0) record = record.withPhases(phases);
        String session = r.text("session_id");
        int images = r.integer("image_count", 0);
        String restOf = r.text("rest_of");
        int ignoredLines = r.integer("ignored_stream_lines", 0);
        String ignoredLine = r.text("ignored_stream_line");
        // the end marker's absence is not in the file (a warning of the run's, not rebuilt from files)
        RequestTags tags = new RequestTags(session.isEmpty() ? null : session, r.integer("turn", -1),
                r.boxed("cached_tokens"), images, images > 0 ? r.longValue("image_pixels") : 0,
                images > 0 ? r.longValue("image_bytes") : 0, false, r.integer("session_turns", 0),
                restOf.isEmpty() ? null : restOf, ignoredLines,
                ignoredLines > 0 && !ignoredLine.isEmpty() ? ignoredLine : null);
        if (!tags.equals(RequestTags.NONE)) record = record.withTags(tags);
        return worker.isEmpty() ? record : record.withWorkerId(worker);
    }

    /** Typed access to one CSV row, with messages naming file, data row and column. */
    private record Row(CSVRecord row, String source) {
        String text(String column) {
            return row.isSet(column) ? row.get(column) : "";
        }

        int integer(String column, int ifEmpty) throws IOException {
            String value = text(column).strip();
            if (value.isEmpty()) return ifEmpty;
            try {
                return Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw error(column, value, "is not an integer");
            }
        }

        long longValue(String column) throws IOException {
            String value = text(column).strip();
            if (value.isEmpty()) return 0;
            try {
                return Long.parseLong(value);
            } catch (NumberFormatException e) {
                throw error(column, value, "is not an integer");
            }
        }

        Integer boxed(String column) throws IOException {
            return text(column).isBlank() ? null : integer(column, 0);
        }

        long scaled(String column, int digits, long ifEmpty) throws IOException {
            String value = text(column).strip();
            if (value.isEmpty()) return ifEmpty;
            try {
                return new BigDecimal(value).movePointRight(digits).setScale(0, RoundingMode.HALF_UP).longValueExact();
            } catch (NumberFormatException | ArithmeticException e) {
                throw error(column, value, "is not a decimal number of seconds");
            }
        }

        IOException error(String column, String value, String problem) {
            return new IOException(source + " data row " + row.getRecordNumber() + ", column " + column + ": '"
                    + value + "' " + problem);
        }
    }
}
