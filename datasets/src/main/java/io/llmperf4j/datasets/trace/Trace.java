package io.llmperf4j.datasets.trace;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.datasets.DatasetFormatException;
import io.llmperf4j.datasets.JsonMessages;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * A request trace to replay: {@code mooncake:FILE} (JSON Lines: {@code timestamp} ms, {@code input_length},
 * {@code output_length}, optional {@code hash_ids} of {@value #BLOCK_TOKENS}-token blocks, {@code session_id},
 * {@code delay} ms; or AIPerf's {@code text_input}, a prompt sent as it is, instead of {@code input_length}),
 * {@code azure:FILE} (the Azure LLM inference trace CSV {@code TIMESTAMP,ContextTokens,GeneratedTokens}, 2023 and
 * 2024 date forms) or {@code burstgpt:FILE} (the BurstGPT CSV {@code Timestamp,[Session ID,Elapsed time,]Model,
 * Request tokens,Response tokens,Total tokens,Log Type}, Timestamp in seconds; a failed row, Response tokens 0, is
 * skipped and counted, as vLLM's BurstGPT loader drops it: it has no output length to ask for). Timestamps must not
 * decrease (ties allowed); they are made relative to the first request. Every problem is a
 * {@link DatasetFormatException} naming the file and the 1-based line.
 *
 * @param format      {@value #MOONCAKE}, {@value #AZURE} or {@value #BURSTGPT}
 * @param file        the file as given
 * @param requests    in file order
 * @param failedRows  BurstGPT rows skipped as failed (Response tokens 0); 0 for the other formats
 */
public record Trace(String format, Path file, List<TraceRequest> requests, int failedRows) {
    public static final String MOONCAKE = "mooncake";
    public static final String AZURE = "azure";
    public static final String BURSTGPT = "burstgpt";
    /**
     * AIPerf's Mooncake fields this replay cannot honour, with what each is, in the order a line is checked: refused,
     * naming the line, rather than dropped unseen (a request sent without them is not the trace's).
     */
    private static final List<Map.Entry<String, String>> UNSUPPORTED = List.of(
            Map.entry("messages", "AIPerf's pre-formatted chat messages"),
            Map.entry("payload", "AIPerf's verbatim request body"),
            Map.entry("tools", "AIPerf's tool definitions"),
            Map.entry("extra", "AIPerf's per-request body fields"),
            Map.entry("message_mode", "AIPerf's message replay mode"));
    /** Tokens per {@code hash_ids} block (Mooncake's and AIPerf's). */
    public static final int BLOCK_TOKENS = 512;
    private static final String WHAT = "Trace file";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    public Trace {
        requests = List.copyOf(requests);
    }

    /** A trace with no rows skipped. */
    public Trace(String format, Path file, List<TraceRequest> requests) {
        this(format, file, requests, 0);
    }

    /**
     * Reads {@code FORMAT:FILE}.
     *
     * @throws IllegalArgumentException for an unknown format or a file that does not exist
     * @throws DatasetFormatException   naming the file and line of a malformed request
     */
    public static Trace load(String spec) {
        int colon = spec == null ? -1 : spec.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("a trace is FORMAT:FILE with FORMAT mooncake, azure or burstgpt (got '"
                    + spec + "')");
        }
        String format = spec.substring(0, colon).toLowerCase(Locale.ROOT);
        Path file = Path.of(spec.substring(colon + 1));
        if (!format.equals(MOONCAKE) && !format.equals(AZURE) && !format.equals(BURSTGPT)) {
            throw new IllegalArgumentException("trace '" + spec + "': unknown trace format '" + format
                    + "' (mooncake, azure or burstgpt)");
        }
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(WHAT + " " + file + " is not a readable file");
        }
        if (format.equals(BURSTGPT)) return burstGpt(file);
        List<String> lines;
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            lines = r.lines().toList();
        } catch (IOException | UncheckedIOException e) {
            throw new DatasetFormatException(WHAT, file, "line 1", "cannot be read as UTF-8 text: " + e.getMessage(), e);
        }
        List<TraceRequest> requests = format.equals(MOONCAKE) ? mooncake(file, lines) : azure(file, lines);
        if (requests.isEmpty()) throw new DatasetFormatException(WHAT, file, "line 1", "the trace has no requests");
        return new Trace(format, file, requests);
    }

    private static List<TraceRequest> mooncake(Path file, List<String> lines) {
        List<TraceRequest> out = new ArrayList<>();
        Set<String> sessions = new HashSet<>(); // seen so far: a session's first line is its first turn
        long previous = Long.MIN_VALUE;
        long first = 0;
        for (int i = 0; i < lines.size(); i++) {
            int line = i + 1;
            String text = lines.get(i);
            if (text.isBlank()) continue;
            JsonNode node;
            try {
                node = MAPPER.readTree(text);
            } catch (JsonProcessingException e) {
                throw error(file, line, "not valid JSON: " + JsonMessages.clean(e));
            }
            if (!node.isObject()) throw error(file, line, "a request must be a JSON object");
            for (Map.Entry<String, String> field : UNSUPPORTED) {
                if (node.has(field.getKey()) && !node.get(field.getKey()).isNull()) {
                    throw error(file, line, "\"" + field.getKey() + "\" (" + field.getValue() + ") is not supported: "
                            + "give input_length (with hash_ids) or text_input");
                }
            }
            long timestamp = integer(file, line, node, "timestamp", true);
            String textInput = textInput(file, line, node);
            int input = textInput != null ? 0 : (int) integer(file, line, node, "input_length", true);
            int output = (int) integer(file, line, node, "output_length", true);
            if (textInput == null && input < 1) throw error(file, line, "input_length must be >= 1");
            if (output < 1) throw error(file, line, "output_length must be >= 1");
            long[] hashIds = null;
            JsonNode ids = node.get("hash_ids");
            if (ids != null && !ids.isNull()) {
                if (textInput != null) {
                    throw error(file, line, "hash_ids goes with input_length, not text_input: a text_input is sent "
                            + "as it is, it has no synthesized blocks (AIPerf refuses both too)");
                }
                if (!ids.isArray()) throw error(file, line, "hash_ids must be an array of integers");
                hashIds = new long[ids.size()];
                for (int k = 0; k < ids.size(); k++) {
                    if (!ids.get(k).canConvertToLong() || !ids.get(k).isIntegralNumber()) {
                        throw error(file, line, "hash_ids[" + k + "] is not an integer");
                    }
                    hashIds[k] = ids.get(k).longValue();
                }
                int blocks = (input + BLOCK_TOKENS - 1) / BLOCK_TOKENS;
                if (hashIds.length != blocks) {
                    throw error(file, line, "hash_ids has " + hashIds.length + " ids but input_length " + input
                            + " makes " + blocks + " blocks of " + BLOCK_TOKENS + " tokens");
                }
            }
            String session = null;
            JsonNode s = node.get("session_id");
            if (s != null && !s.isNull()) session = s.asText();
            long delay = node.has("delay") && !node.get("delay").isNull() ? integer(file, line, node, "delay", false)
                    : -1;
            // a delay is the think time before a session's later turn: anywhere else it would be ignored unseen
            if (delay >= 0 && session == null) {
                throw error(file, line, "\"delay\" without \"session_id\": a delay is the think time before a "
                        + "session's later turn");
            }
            if (session != null && sessions.add(session) && delay >= 0) {
                throw error(file, line, "\"delay\" on the first turn of session \"" + session + "\": a session "
                        + "starts at its timestamp; a delay is the think time before a later turn");
            }
            if (previous != Long.MIN_VALUE && timestamp < previous) {
                throw error(file, line, "timestamp " + timestamp + " is before the previous request's (" + previous
                        + "): timestamps must not decrease");
            }
            if (previous == Long.MIN_VALUE) first = timestamp;
            previous = timestamp;
            out.add(new TraceRequest(timestamp - first, input, output, hashIds, session, delay, line, textInput));
        }
        return out;
    }

    /**
     * AIPerf's {@code text_input}: the prompt, sent as it is; or null. It replaces {@code input_length}, as in AIPerf,
     * where the two (and {@code messages}, {@code payload}) are mutually exclusive: a line with both is refused, not
     * one of them silently dropped.
     */
    private static String textInput(Path file, int line, JsonNode node) {
        JsonNode v = node.get("text_input");
        if (v == null || v.isNull()) return null;
        if (!v.isTextual()) throw error(file, line, "\"text_input\" must be a string, not " + v);
        if (v.asText().isBlank()) throw error(file, line, "\"text_input\" is empty: a prompt must ask something");
        JsonNode length = node.get("input_length");
        if (length != null && !length.isNull()) {
            throw error(file, line, "\"text_input\" and \"input_length\" are alternatives (AIPerf refuses both): "
                    + "give text_input to send that text, its length counted by the run's tokenizer, or "
                    + "input_length for a synthesized prompt");
        }
        return v.asText();
    }

    private static long integer(Path file, int line, JsonNode node, String field, boolean required) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            if (required) throw error(file, line, "missing field \"" + field + "\"");
            return -1;
        }
        if (!v.isIntegralNumber() && !(v.isNumber() && v.asDouble() == Math.rint(v.asDouble()))) {
            throw error(file, line, "\"" + field + "\" must be an integer, not " + v);
        }
        long value = v.asLong();
        if (value < 0 || value > Integer.MAX_VALUE && !field.equals("timestamp")) {
            throw error(file, line, "\"" + field + "\" (" + value + ") is out of range");
        }
        return value;
    }

    private static List<TraceRequest> azure(Path file, List<String> lines) {
        if (lines.isEmpty()) throw error(file, 1, "the file is empty; expected the header "
                + "TIMESTAMP,ContextTokens,GeneratedTokens");
        String[] header = lines.get(0).replace("\uFEFF", "").split(",", -1);
        int ts = -1;
        int ctx = -1;
        int gen = -1;
        for (int c = 0; c < header.length; c++) {
            String h = header[c].strip();
            if (h.equalsIgnoreCase("TIMESTAMP")) ts = c;
            if (h.equalsIgnoreCase("ContextTokens")) ctx = c;
            if (h.equalsIgnoreCase("GeneratedTokens")) gen = c;
        }
        if (ts < 0 || ctx < 0 || gen < 0) {
            throw error(file, 1, "the header must name TIMESTAMP, ContextTokens and GeneratedTokens (got '"
                    + lines.get(0) + "')");
        }
        List<TraceRequest> out = new ArrayList<>();
        long firstMicros = 0;
        long previous = Long.MIN_VALUE;
        for (int i = 1; i < lines.size(); i++) {
            int line = i + 1;
            if (lines.get(i).isBlank()) continue;
            String[] cells = lines.get(i).split(",", -1);
            int needed = Math.max(ts, Math.max(ctx, gen));
            if (cells.length <= needed) {
                throw error(file, line, "expected " + header.length + " columns, found " + cells.length);
            }
            long micros = azureMicros(file, line, cells[ts].strip());
            int input = positive(file, line, "ContextTokens", cells[ctx]);
            int output = positive(file, line, "GeneratedTokens", cells[gen]);
            if (previous != Long.MIN_VALUE && micros < previous) {
                throw error(file, line, "TIMESTAMP " + cells[ts].strip() + " is before the previous row's: "
                        + "timestamps must not decrease");
            }
            if (previous == Long.MIN_VALUE) firstMicros = micros;
            previous = micros;
            out.add(new TraceRequest((micros - firstMicros) / 1000, input, output, null, null, -1, line));
        }
        return out;
    }

    /**
     * BurstGPT's CSV, read by its header's names (6 columns in files _1 and _2, 8 with Session ID and Elapsed time in
     * _3): Timestamp (seconds from the trace's day one, made relative to the first row), Request tokens, Response
     * tokens. Model and Log Type are kept as the trace's traffic, every model: a replay is the service's whole
     * arrival process. A failed row (Response tokens 0) is skipped and counted ({@link #failedRows}).
     */
    private static Trace burstGpt(Path file) {
        // blank lines kept as records (and skipped below), so a record's number is its line
        CSVFormat csv = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).setTrim(true)
                .setAllowMissingColumnNames(true).setIgnoreEmptyLines(false).get();
        List<TraceRequest> out = new ArrayList<>();
        int failed = 0;
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8);
             CSVParser parser = CSVParser.parse(reader, csv)) {
            List<String> header = parser.getHeaderNames().stream().map(h -> h.replace("\uFEFF", "").strip())
                    .toList();
            String[] needed = {"Timestamp", "Request tokens", "Response tokens"};
            int[] at = new int[needed.length];
            for (int k = 0; k < needed.length; k++) {
                at[k] = header.indexOf(needed[k]);
                if (at[k] < 0) {
                    throw error(file, 1, "the header must name " + String.join(", ", needed) + " (BurstGPT's "
                            + "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type; got '"
                            + String.join(",", header) + "')");
                }
            }
            int width = Arrays.stream(at).max().orElseThrow();
            long firstMs = 0;
            long previous = Long.MIN_VALUE;
            java.util.Iterator<CSVRecord> rows = parser.iterator();
            while (true) {
                CSVRecord row;
                try {
                    if (!rows.hasNext()) break;
                    row = rows.next();
                } catch (UncheckedIOException | IllegalStateException e) { // an unclosed quote, say
                    throw error(file, (int) parser.getCurrentLineNumber() + 1, "not valid CSV: " + e.getMessage());
                }
                int line = (int) row.getRecordNumber() + 1; // the header is line 1
                if (row.size() == 1 && row.get(0).isBlank()) continue;
                if (row.size() <= width) {
                    throw error(file, line, "expected " + header.size() + " columns, found " + row.size());
                }
                long ms = burstGptMillis(file, line, row.get(at[0]));
                int output = count(file, line, "Response tokens", row.get(at[2]), 0);
                if (output == 0) { // failed in the service: no output length to ask for
                    failed++;
                    continue;
                }
                int input = count(file, line, "Request tokens", row.get(at[1]), 1);
                if (previous != Long.MIN_VALUE && ms < previous) {
                    throw error(file, line, "Timestamp " + row.get(at[0]) + " is before the previous row's: "
                            + "timestamps must not decrease");
                }
                if (previous == Long.MIN_VALUE) firstMs = ms;
                previous = ms;
                out.add(new TraceRequest(ms - firstMs, input, output, null, null, -1, line));
            }
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) { // the header, the file
            throw new DatasetFormatException(WHAT, file, "line 1", "cannot be read as BurstGPT CSV: "
                    + e.getMessage(), e);
        }
        if (out.isEmpty()) {
            throw new DatasetFormatException(WHAT, file, "line 1", "the trace has no requests"
                    + (failed > 0 ? " (its " + failed + " rows all failed: Response tokens 0)" : ""));
        }
        return new Trace(BURSTGPT, file, out, failed);
    }

    private static long burstGptMillis(Path file, int line, String cell) {
        try {
            BigDecimal seconds = new BigDecimal(cell);
            if (seconds.signum() >= 0) return seconds.movePointRight(3).setScale(0, java.math.RoundingMode.HALF_UP)
                    .longValueExact();
        } catch (NumberFormatException | ArithmeticException e) {
            // below
        }
        throw error(file, line, "Timestamp must be seconds >= 0, such as 5 or 12.25 (got '" + cell + "')");
    }

    private static int count(Path file, int line, String column, String cell, int min) {
        try {
            int v = Integer.parseInt(cell.strip());
            if (v >= min) return v;
        } catch (NumberFormatException e) {
            // below
        }
        throw error(file, line, column + " must be an integer >= " + min + " (got '" + cell.strip() + "')");
    }

    private static int positive(Path file, int line, String column, String cell) {
        try {
            int v = Integer.parseInt(cell.strip());
            if (v >= 1) return v;
        } catch (NumberFormatException e) {
            // below
        }
        throw error(file, line, column + " must be an integer >= 1 (got '" + cell.strip() + "')");
    }

    /** 2023: {@code 2023-11-16 18:17:03.9799600}; 2024: {@code 2024-05-10 00:00:00.009930+00:00}, fraction optional. */
    static long azureMicros(Path file, int line, String text) {
        try {
            String t = text.replace(' ', 'T');
            int zone = Math.max(t.lastIndexOf('+'), t.indexOf('Z'));
            if (zone < 0 && t.lastIndexOf('-') > 10) zone = t.lastIndexOf('-');
            ZoneOffset offset = ZoneOffset.UTC;
            if (zone > 0) {
                offset = t.charAt(zone) == 'Z' ? ZoneOffset.UTC : ZoneOffset.of(t.substring(zone));
                t = t.substring(0, zone);
            }
            String fraction = "";
            int dot = t.indexOf('.');
            if (dot >= 0) {
                fraction = t.substring(dot + 1);
                t = t.substring(0, dot);
            }
            if (!fraction.chars().allMatch(Character::isDigit)) throw new IllegalArgumentException(fraction);
            long seconds = OffsetDateTime.of(LocalDateTime.parse(t), offset).toEpochSecond();
            long micros = fraction.isEmpty() ? 0 : Long.parseLong((fraction + "000000").substring(0, 6));
            return seconds * 1_000_000L + micros;
        } catch (RuntimeException e) {
            throw error(file, line, "TIMESTAMP '" + text + "' is not a date such as 2023-11-16 18:17:03.9799600 or "
                    + "2024-05-10 00:00:00.009930+00:00");
        }
    }

    private static DatasetFormatException error(Path file, int line, String problem) {
        return new DatasetFormatException(WHAT, file, "line " + line, problem);
    }

    /**
     * The requests scaled by {@code speedup} (timestamps and delays divided by it) and cut at {@code duration} of
     * the scaled trace (requests at or after it dropped; null keeps all), compared before the scaled timestamps are
     * rounded to whole ms, so a cut under a millisecond still keeps a request at 0. A session whose first request is
     * kept is kept whole.
     */
    public Trace scaled(double speedup, Duration duration) {
        return scaled(speedup, null, duration);
    }

    /**
     * The window of the scaled trace from {@code start} (null: its first request) for {@code duration} (null: to its
     * end), both in the scaled trace's time from its first request, as {@code --trace-start} and
     * {@code --trace-duration} give them: the requests at or after the start and before start + duration are kept,
     * compared before the scaled timestamps are rounded to whole ms, and made relative to the first one kept, which
     * is sent at 0. A session is kept whole when its first request is in the window, and left out whole when it
     * started before (its later turns would lack the history the server saw).
     *
     * @throws IllegalArgumentException naming the flag: a negative start, a start after the last request (the
     *                                  message says the trace's length), or a window that keeps no request
     */
    public Trace scaled(double speedup, Duration start, Duration duration) {
        if (!(speedup > 0) || Double.isInfinite(speedup)) {
            throw new IllegalArgumentException("--trace-speedup must be > 0 and finite (got " + speedup + ")");
        }
        double startMs = start == null ? 0 : start.toNanos() / 1e6;
        if (startMs < 0) throw new IllegalArgumentException("--trace-start must be >= 0 (got " + seconds(startMs) + ")");
        double lastMs = (requests.get(requests.size() - 1).timestampMs() - requests.get(0).timestampMs()) / speedup;
        if (startMs > lastMs) {
            throw new IllegalArgumentException("--trace-start " + seconds(startMs) + " is beyond the end of " + format
                    + ":" + file + ", which is " + seconds(lastMs) + " s long (first to last request"
                    + (speedup == 1 ? "" : ", after --trace-speedup " + BigDecimal.valueOf(speedup)
                    .stripTrailingZeros().toPlainString()) + ")");
        }
        double endMs = duration == null ? Double.POSITIVE_INFINITY : startMs + duration.toNanos() / 1e6;
        List<TraceRequest> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        Set<String> kept = new HashSet<>();
        double firstKeptMs = Double.NaN;
        for (TraceRequest r : requests) {
            double exact = r.timestampMs() / speedup;
            boolean keep;
            if (r.sessionId() != null && !seen.add(r.sessionId())) {
                keep = kept.contains(r.sessionId()); // a later turn goes with its session's first
            } else {
                keep = exact >= startMs && exact < endMs;
                if (keep && r.sessionId() != null) kept.add(r.sessionId());
            }
            if (!keep) continue;
            if (out.isEmpty()) firstKeptMs = exact;
            out.add(r.at(Math.round(exact - firstKeptMs), r.delayMs() < 0 ? -1 : Math.round(r.delayMs() / speedup)));
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(start == null ? "--trace-duration keeps no request of " + file
                    : "--trace-start " + seconds(startMs) + (duration == null ? "" : " with --trace-duration "
                    + seconds(duration.toNanos() / 1e6)) + " keeps no request of " + file
                    + ": no request starts in that window (a session counts at its first turn)");
        }
        return new Trace(format, file, out, failedRows);
    }

    /** ms as seconds in plain digits, without trailing zeros: 3600, 0.25. */
    private static String seconds(double ms) {
        return new BigDecimal(ms / 1000).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString();
    }

    /**
     * The trace with each {@code text_input} request's input length counted by {@code tokens} (the run's
     * tokenizer), as its prompt is that text; requests of synthesized prompts as they are.
     */
    public Trace counted(ToIntFunction<String> tokens) {
        if (!hasTextInput()) return this;
        return new Trace(format, file, requests.stream().map(r -> r.textInput() == null ? r
                : r.withInputLength(tokens.applyAsInt(r.textInput()))).toList(), failedRows);
    }

    /** Whether any request carries its own prompt ({@code text_input}). */
    public boolean hasTextInput() {
        return requests.stream().anyMatch(r -> r.textInput() != null);
    }

    /**
     * The mean arrival rate, requests per second: the intervals between the requests over the span; NaN when the
     * span is 0 (one request, or all at one timestamp), where no rate is defined.
     */
    public double meanRequestsPerSecond() {
        long span = spanMs();
        return span == 0 ? Double.NaN : (requests.size() - 1) / (span / 1000.0);
    }

    /** Span from the first to the last request, in ms. */
    public long spanMs() {
        return requests.get(requests.size() - 1).timestampMs() - requests.get(0).timestampMs();
    }

    /** Whether any request is a turn of a session ({@code session_id}). */
    public boolean hasSessions() {
        return requests.stream().anyMatch(r -> r.sessionId() != null);
    }

    /**
     * What the replay sends on its timestamps: each session's first turn, and every request without a session, in
     * trace order. A session's later turns are not arrivals: each is sent its {@code delay} after the previous
     * turn's reply, its timestamp only orders it. Without sessions, every request.
     */
    public List<TraceRequest> arrivals() {
        java.util.Set<String> started = new java.util.HashSet<>();
        return requests.stream().filter(r -> r.sessionId() == null || started.add(r.sessionId())).toList();
    }

    /** Span from the first to the last arrival ({@link #arrivals()}), in ms. */
    public long arrivalSpanMs() {
        List<TraceRequest> a = arrivals();
        return a.get(a.size() - 1).timestampMs() - a.get(0).timestampMs();
    }

    /**
     * The mean arrival rate over {@link #arrivals()}: session starts (and requests without a session) per second,
     * which without sessions is {@link #meanRequestsPerSecond()}; NaN when they share one timestamp.
     */
    public double meanArrivalsPerSecond() {
        long span = arrivalSpanMs();
        return span == 0 ? Double.NaN : (arrivals().size() - 1) / (span / 1000.0);
    }

    /**
     * When the replay's last request falls due at the earliest, ms from the first request: the latest of each
     * arrival's timestamp and each session's start plus the sum of its later turns' delays (a delay not given
     * counts 0). The replies' own times are not in it, they are the server's. Without sessions, {@link #spanMs()}.
     */
    public long lastDueMs() {
        java.util.Map<String, Long> due = new java.util.HashMap<>();
        long last = 0;
        for (TraceRequest r : requests) {
            long at;
            if (r.sessionId() == null) {
                at = r.timestampMs();
            } else {
                Long previous = due.get(r.sessionId());
                at = previous == null ? r.timestampMs() : previous + Math.max(0, r.delayMs());
                due.put(r.sessionId(), at);
            }
            last = Math.max(last, at - requests.get(0).timestampMs());
        }
        return last;
    }
}
