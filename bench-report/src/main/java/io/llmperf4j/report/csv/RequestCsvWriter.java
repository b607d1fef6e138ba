package io.llmperf4j.report.csv;

import io.llmperf4j.model.PrintableText;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.metrics.Phase;
import io.llmperf4j.report.metrics.RequestPhaseTimes;
import java.io.IOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/**
 * One CSV row per recorded request (llmperf has no such file), RFC 4180 with a header row, UTF-8, so a run can
 * be joined with server logs (request ids, wall-clock start) and server token counts compared with the
 * client's.
 *
 * <p>Times are plain decimal seconds, never in exponent form: the start with microseconds, durations with
 * nanoseconds. A value that is unknown or never happened is an empty field. {@code ttfrt_s} is the time to the
 * first reasoning token, empty unless the server streamed reasoning apart from the content. Unlike llmperf's JSON, a failed
 * request's {@code end_to_end_latency_s} is the real time from send to the failure: useful here, and this file
 * has no llmperf layout to keep. {@code error_msg} is llmperf's (the response body, the error's message) on one
 * printable line, its control characters escaped as the console escapes them ({@link PrintableText}: a CR LF reads
 * {@code \r\n}, a NUL {@code \x00}): a server's body must not break line tools or make grep call the file binary;
 * the JSON files keep it whole, JSON's escapes make them safe. {@code connect_s} is the time the request spent
 * opening a new connection (TCP and TLS; part of its TTFT), empty when it reused a pooled one. The timing phases follow the other columns
 * (METRICS.md, "Timing phases"): {@code connection} ({@code new}, {@code reused}, or empty when unknown),
 * {@code connection_wait_s} and {@code tls_s} (durations), {@code request_written_s}, {@code response_headers_s}
 * and {@code last_content_s} (offsets from the start stamp, as {@code ttft_s}, which is the first content); each
 * empty when not measured. Then {@code session_id} and {@code turn} (0-based) of a multi-turn session's request
 * (empty outside sessions) and {@code cached_tokens}, the prompt tokens the server said it served from its prefix
 * cache (empty when it did not say). A distributed run's file has one more column,
 * {@value #WORKER_COLUMN}, the load worker that sent each request; other runs' files do not. An open loop's file has
 * {@value #SEND_LAG_COLUMN} after it: how late each request went out against its schedule, so its TTFT from the
 * intended send is {@code send_lag_s + ttft_s}. A run whose requests
 * carried images has three more columns next, {@link #IMAGE_COLUMNS}: the images each request sent, their
 * pixels and their encoded bytes (before base64); beside {@code number_input_tokens} (the client tokenizer's count of
 * the text alone), {@code prompt_tokens_server} then holds the server's count with the image tokens. Sessions that
 * say how many turns the workload gave them add {@link #SESSION_COLUMNS} after those: {@code session_turns} (the
 * session's turns, a failed session's rest's too) and {@code rest_of} (a failed session's rest, {@code s0~t2}: the
 * workload session it continues, {@code s0}; empty on every other row), so a summary rebuilt from this file counts
 * the rest in its session and tells a completed session from a cut one, as from {@code requests.jsonl}. A run whose
 * streams had lines the SSE standard ignores adds {@link #IGNORED_STREAM_COLUMNS} last: {@code ignored_stream_lines}
 * (how many, empty for none) and {@code ignored_stream_line} (the first, printable and short), what
 * STREAM_LINES_IGNORED counts and quotes. A scheduled run's file whose requests this machine sent ends with
 * {@value #CLIENT_DELAY_COLUMN}: the client's own delay after the send stamp, so the send lag the console counts (to
 * when the request left the client) is {@code send_lag_s + client_delay_s}. Each of these optional columns is empty
 * where unset, and columns are only
 * ever appended: a reader by name finds the earlier ones where they were.
 */
public final class RequestCsvWriter {

    /** Columns added after the first release: files written before them lack them, and readers accept that. */
    public static final List<String> LATER_COLUMNS = List.of("ttfrt_s", "connect_s", "connection",
            "connection_wait_s", "tls_s", "request_written_s", "response_headers_s", "last_content_s", "session_id",
            "turn", "cached_tokens");

    /** The columns, in order. */
    public static final List<String> HEADER = List.of(
            "client_request_id", "server_response_id", "prompt_index", "start_time_epoch_s", "ttft_s", "ttfrt_s",
            "end_to_end_latency_s", "connect_s", "number_input_tokens", "max_tokens", "output_tokens_client",
            "output_tokens_server", "prompt_tokens_server", "finish_reason", "error_kind", "error_code",
            "error_msg", "connection", "connection_wait_s", "tls_s", "request_written_s", "response_headers_s",
            "last_content_s", "session_id", "turn", "cached_tokens");

    /** The last column, present only when some record names the load worker that sent it. */
    public static final String WORKER_COLUMN = "worker";

    /** The column after that, present only in a scheduled run's file (an open loop, or sessions): actual minus intended send, in seconds. */
    public static final String SEND_LAG_COLUMN = "send_lag_s";

    /** The columns after those, present only when some request carried an image. */
    public static final List<String> IMAGE_COLUMNS = List.of("image_count", "image_pixels", "image_bytes");

    /**
     * The columns after those, present only when some request knows its session's turns or is a failed session's
     * rest: {@code requests.jsonl}'s {@code tags.session_turns} and {@code tags.rest_of}.
     */
    public static final List<String> SESSION_COLUMNS = List.of("session_turns", "rest_of");

    /**
     * The last columns, present only when some stream had lines the SSE standard ignores: {@code requests.jsonl}'s
     * {@code tags.ignored_stream_lines} and {@code tags.ignored_stream_line}.
     */
    public static final List<String> IGNORED_STREAM_COLUMNS = List.of("ignored_stream_lines", "ignored_stream_line");

    /**
     * The last column, present only in a scheduled run's file whose requests carry it ({@code requests.jsonl}'s
     * {@code client_delay_nanos}): the client's own delay after the send stamp, in seconds.
     */
    public static final String CLIENT_DELAY_COLUMN = "client_delay_s";

    private static final int MICROS_DIGITS = 6;
    private static final int NANOS_DIGITS = 9;
    private static final CSVFormat FORMAT = CSVFormat.RFC4180.builder()
            .setHeader(HEADER.toArray(String[]::new))
            .get();

    private RequestCsvWriter() {
    }

    /** Writes {@code records} to {@code file}, replacing it. */
    public static void write(List<RequestRecord> records, Path file) throws IOException {
        write(records, Map.of(), file);
    }

    /**
     * Writes {@code records} to {@code file}, replacing it, with {@value #SEND_LAG_COLUMN} from {@code sendLagNanos}
     * (each request's send lag by client request id; empty without a schedule (a plain closed loop), and then no such column).
     */
    public static void write(List<RequestRecord> records, Map<String, Long> sendLagNanos, Path file)
            throws IOException {
        write(records, sendLagNanos, Map.of(), file);
    }

    /** The same with {@value #CLIENT_DELAY_COLUMN} from {@code clientDelayNanos} when it is not empty. */
    public static void write(List<RequestRecord> records, Map<String, Long> sendLagNanos,
                             Map<String, Long> clientDelayNanos, Path file) throws IOException {
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            write(records, sendLagNanos, clientDelayNanos, writer);
        }
    }

    /** Writes the header and one row per record to {@code out}, which stays open. */
    public static void write(List<RequestRecord> records, Appendable out) throws IOException {
        write(records, Map.of(), out);
    }

    /** The same with {@value #SEND_LAG_COLUMN} from {@code sendLagNanos} when it is not empty. */
    public static void write(List<RequestRecord> records, Map<String, Long> sendLagNanos, Appendable out)
            throws IOException {
        write(records, sendLagNanos, Map.of(), out);
    }

    /**
     * The same with {@value #CLIENT_DELAY_COLUMN} last from {@code clientDelayNanos} (each request's client delay by
     * client request id) when it is not empty.
     */
    public static void write(List<RequestRecord> records, Map<String, Long> sendLagNanos,
                             Map<String, Long> clientDelayNanos, Appendable out) throws IOException {
        boolean workers = records.stream().anyMatch(r -> r.workerId() != null);
        boolean lags = !sendLagNanos.isEmpty();
        boolean images = records.stream().anyMatch(r -> r.tags().imageCount() > 0);
        boolean sessions = records.stream().anyMatch(r -> r.tags().sessionTurns() > 0 || r.tags().restOf() != null);
        boolean ignoredLines = records.stream().anyMatch(r -> r.tags().ignoredStreamLines() > 0);
        boolean delays = !clientDelayNanos.isEmpty();
        boolean extra = workers || lags || images || sessions || ignoredLines || delays;
        CSVFormat format = FORMAT;
        if (extra) {
            List<String> header = new ArrayList<>(HEADER);
            if (workers) header.add(WORKER_COLUMN);
            if (lags) header.add(SEND_LAG_COLUMN);
            if (images) header.addAll(IMAGE_COLUMNS);
            if (sessions) header.addAll(SESSION_COLUMNS);
            if (ignoredLines) header.addAll(IGNORED_STREAM_COLUMNS);
            if (delays) header.add(CLIENT_DELAY_COLUMN);
            format = CSVFormat.RFC4180.builder().setHeader(header.toArray(String[]::new)).get();
        }
        CSVPrinter printer = new CSVPrinter(out, format);
        for (RequestRecord record : records) {
            if (extra) {
                List<String> row = new ArrayList<>(row(record));
                if (workers) row.add(orEmpty(record.workerId()));
                if (lags) {
                    Long lag = sendLagNanos.get(record.clientRequestId());
                    row.add(lag == null ? "" : seconds(lag));
                }
                if (images) {
                    row.add(Integer.toString(record.tags().imageCount()));
                    row.add(Long.toString(record.tags().imagePixels()));
                    row.add(Long.toString(record.tags().imageBytes()));
                }
                if (sessions) {
                    row.add(record.tags().sessionTurns() > 0 ? Integer.toString(record.tags().sessionTurns()) : "");
                    row.add(orEmpty(record.tags().restOf()));
                }
                if (ignoredLines) {
                    int lines = record.tags().ignoredStreamLines();
                    row.add(lines > 0 ? Integer.toString(lines) : "");
                    row.add(lines > 0 ? orEmpty(record.tags().ignoredStreamLine()) : "");
                }
                if (delays) {
                    Long delay = clientDelayNanos.get(record.clientRequestId());
                    row.add(delay == null ? "" : seconds(delay));
                }
                printer.printRecord(row);
            } else {
                printer.printRecord(row(record));
            }
        }
        printer.flush();
    }

    /** The fields of one record, as strings in {@link #HEADER} order. */
    public static List<String> row(RequestRecord record) {
        boolean failed = record.failure() != null;
        RequestPhaseTimes phases = RequestPhaseTimes.of(record);
        return Arrays.asList(
                record.clientRequestId(),
                orEmpty(record.serverResponseId()),
                Integer.toString(record.promptIndex()),
                BigDecimal.valueOf(record.startEpochMicros(), MICROS_DIGITS).toPlainString(),
                seconds(record.ttftNanos()),
                seconds(record.firstReasoningNanos()),
                seconds(record.e2eNanos()),
                seconds(record.connectNanos()),
                Integer.toString(record.numberInputTokens()),
                Integer.toString(record.maxTokens()),
                record.outputTokens() < 0 ? "" : Integer.toString(record.outputTokens()),
                orEmpty(record.usageCompletionTokens()),
                orEmpty(record.usagePromptTokens()),
                orEmpty(record.finishReason()),
                failed ? record.failure().kind().name() : "",
                failed ? Integer.toString(record.failure().code()) : "",
                failed ? PrintableText.of(record.failure().message()) : "",
                phases.newConnection() == null ? "" : phases.newConnection() ? "new" : "reused",
                seconds(phases.nanos(Phase.CONNECTION_WAIT).orElse(-1)),
                seconds(record.phases().tlsNanos()),
                seconds(record.phases().requestWrittenNanos()),
                seconds(record.phases().responseHeadersNanos()),
                seconds(record.lastContentNanos()),
                orEmpty(record.tags().sessionId()),
                record.tags().turn() < 0 ? "" : Integer.toString(record.tags().turn()),
                orEmpty(record.tags().cachedTokens()));
    }

    private static String seconds(long nanos) {
        return nanos < 0 ? "" : BigDecimal.valueOf(nanos, NANOS_DIGITS).toPlainString();
    }

    private static String orEmpty(Object value) {
        return value == null ? "" : value.toString();
    }
}
