package io.llmperf4j.datasets.trace;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.datasets.DatasetFormatException;
import io.llmperf4j.datasets.JsonMessages;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A request trace to replay: {@code mooncake:FILE} (JSON Lines: {@code timestamp} ms, {@code input_length},
 * {@code output_length}, optional {@code hash_ids} of {@value #BLOCK_TOKENS}-token blocks, {@code session_id},
 * {@code delay} ms) or {@code azure:FILE} (the Azure LLM inference trace CSV {@code TIMESTAMP,ContextTokens,
 * GeneratedTokens}, 2023 and 2024 date forms). Timestamps must not decrease (ties allowed); they are made relative to
 * the first request. Every problem is a {@link DatasetFormatException} naming the file and the 1-based line.
 *
 * @param format   {@value #MOONCAKE} or {@value #AZURE}
 * @param file     the file as given
 * @param requests in file order
 */
public record Trace(String format, Path file, List<TraceRequest> requests) {
    public static final String MOONCAKE = "mooncake";
    public static final String AZURE = "azure";
    /** Tokens per {@code hash_ids} block (Mooncake's and AIPerf's). */
    public static final int BLOCK_TOKENS = 512;
    private static final String WHAT = "Trace file";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    public Trace {
        requests = List.copyOf(requests);
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
            throw new IllegalArgumentException("a trace is FORMAT:FILE with FORMAT mooncake or azure (got '" + spec
                    + "')");
        }
        String format = spec.substring(0, colon).toLowerCase(Locale.ROOT);
        Path file = Path.of(spec.substring(colon + 1));
        if (!format.equals(MOONCAKE) && !format.equals(AZURE)) {
            throw new IllegalArgumentException("trace '" + spec + "': unknown trace format '" + format
                    + "' (mooncake or azure)");
        }
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(WHAT + " " + file + " is not a readable file");
        }
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
            long timestamp = integer(file, line, node, "timestamp", true);
            int input = (int) integer(file, line, node, "input_length", true);
            int output = (int) integer(file, line, node, "output_length", true);
            if (input < 1) throw error(file, line, "input_length must be >= 1");
            if (output < 1) throw error(file, line, "output_length must be >= 1");
            long[] hashIds = null;
            JsonNode ids = node.get("hash_ids");
            if (ids != null && !ids.isNull()) {
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
            out.add(new TraceRequest(timestamp - first, input, output, hashIds, session, delay, line));
        }
        return out;
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
        if (!(speedup > 0) || Double.isInfinite(speedup)) {
            throw new IllegalArgumentException("--trace-speedup must be > 0 and finite (got " + speedup + ")");
        }
        double limitMs = duration == null ? Double.POSITIVE_INFINITY : duration.toNanos() / 1e6;
        List<TraceRequest> out = new ArrayList<>();
        java.util.Set<String> kept = new java.util.HashSet<>();
        for (TraceRequest r : requests) {
            double exact = r.timestampMs() / speedup;
            long t = Math.round(exact);
            boolean keep = r.sessionId() != null && kept.contains(r.sessionId()) || exact < limitMs;
            if (!keep) continue;
            if (r.sessionId() != null) kept.add(r.sessionId());
            out.add(new TraceRequest(t, r.inputLength(), r.outputLength(), r.hashIds(), r.sessionId(),
                    r.delayMs() < 0 ? -1 : Math.round(r.delayMs() / speedup), r.line()));
        }
        if (out.isEmpty()) throw new IllegalArgumentException("--trace-duration keeps no request of " + file);
        return new Trace(format, file, out);
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
