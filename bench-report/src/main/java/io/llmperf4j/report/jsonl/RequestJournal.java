package io.llmperf4j.report.jsonl;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.annotation.JsonAppend;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestTags;
import io.llmperf4j.model.disk.ResultsDisk;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * {@code requests.jsonl}: every request record, one JSON object a line, written and flushed the moment the request
 * ends, so a run that is killed still leaves every completed request on disk. Field names are the record's in
 * snake case ({@code ttft_nanos}, {@code content_event_nanos}, {@code failure.kind}, ...); times are nanoseconds
 * from the request's send. {@code worker_id}, the load worker that sent the request, is written only in a
 * distributed run; {@code send_lag_nanos}, how late the request went out against its schedule (its TTFT from the
 * intended send is {@code send_lag_nanos + ttft_nanos}), only in a run with a schedule (an open loop, or sessions),
 * with {@code client_delay_nanos} after it on a request this machine sent: the client's own delay after the send stamp
 * until the request's last byte was in the socket, so the send lag the console and {@code <base>_open_loop.json}
 * count (to when the request left the client) is {@code send_lag_nanos + client_delay_nanos};
 * {@code tags.rest_of}, {@code tags.ignored_stream_lines} and {@code tags.ignored_stream_line} only when set.
 */
public final class RequestJournal implements AutoCloseable {
    public static final String FILE_NAME = "requests.jsonl";
    /** A scheduled run's field (an open loop, or sessions): actual minus intended send, in nanoseconds; not part of {@link RequestRecord}. */
    public static final String SEND_LAG_FIELD = "send_lag_nanos";
    /**
     * A scheduled run's field on a request this machine sent (a load worker's records do not carry it): the client's
     * own delay after the send stamp, in nanoseconds (docs/load.md, "Send lag"); not part of {@link RequestRecord}.
     */
    public static final String CLIENT_DELAY_FIELD = "client_delay_nanos";

    private static final ObjectMapper JSON = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .disable(SerializationFeature.INDENT_OUTPUT)
            .addMixIn(RequestRecord.class, WorkerWhenSet.class)
            .addMixIn(RequestTags.class, TagsWhenSet.class)
            .build();

    /** One record a line: the flush after the newline is the only one (not one more after the object). */
    private static final ObjectWriter LINE = JSON.writer().without(SerializationFeature.FLUSH_AFTER_WRITE_VALUE);

    /**
     * Leaves {@code worker_id} out of lines of single-machine runs (bench-model has no Jackson annotations), and
     * appends {@link #SEND_LAG_FIELD} and {@link #CLIENT_DELAY_FIELD} after the record's own fields when the writer
     * carries them as attributes.
     */
    @JsonAppend(attrs = {@JsonAppend.Attr(value = SEND_LAG_FIELD, include = JsonInclude.Include.NON_NULL),
            @JsonAppend.Attr(value = CLIENT_DELAY_FIELD, include = JsonInclude.Include.NON_NULL)})
    private abstract static class WorkerWhenSet {
        @JsonInclude(JsonInclude.Include.NON_NULL)
        abstract String workerId();
    }

    /**
     * Leaves out the tags that only some requests have: {@code rest_of} (a failed session's rest) and the stream's
     * {@code ignored_stream_lines} and {@code ignored_stream_line} (a stream with lines without {@code data:}). Read
     * back, an absent one is null or 0, as on every other request.
     */
    private abstract static class TagsWhenSet {
        @JsonInclude(JsonInclude.Include.NON_NULL)
        abstract String restOf();

        @JsonInclude(JsonInclude.Include.NON_DEFAULT)
        abstract int ignoredStreamLines();

        @JsonInclude(JsonInclude.Include.NON_NULL)
        abstract String ignoredStreamLine();
    }

    /**
     * Time fields added to {@link RequestRecord} after journals were first written, with their "never happened"
     * value: a line without one must not read as 0 ns (Jackson's default for a missing primitive).
     */
    private static final Map<String, Long> LATER_TIME_FIELDS = Map.of(
            "first_reasoning_nanos", RequestRecord.NEVER,
            "connect_nanos", RequestRecord.NEVER);

    /** Jackson's "(start marker at [Source: ...; line: 1, column: 1])" and bare "[Source: ...]" parts. */
    private static final Pattern SOURCE_EXCERPT = Pattern.compile("\\s*\\(?(start marker at )?\\[Source: [^\\]]*\\]\\)?");

    private final Path file;
    /** The file's bytes so far: after a failed append the file is cut back to the last whole record. */
    private final CountingStream out;
    /** UTF-8 bytes straight into the file (no String per line, no second encoding pass), flushed per record. */
    private final JsonGenerator generator;
    /** The file's length after the last whole record. */
    private long wholeBytes;
    /** An append failed: the generator holds a cut record that must never reach the file (close() drops it). */
    private boolean broken;

    private RequestJournal(Path file, OutputStream out) throws IOException {
        this.file = file;
        this.out = new CountingStream(out);
        this.generator = JSON.createGenerator(this.out, JsonEncoding.UTF8);
        generator.setRootValueSeparator(null); // the newline after each record is the only separator
    }

    /** Starts an empty journal in {@code dir} (replacing one from an earlier run). */
    public static RequestJournal create(Path dir) throws IOException {
        Path file = dir.resolve(FILE_NAME);
        return new RequestJournal(file, ResultsDisk.of(file).open(file));
    }

    /**
     * A journal that encodes every record as {@link #create} does and drops the bytes: the client warm-up runs the
     * run's own journal code through the JIT with it. The bytes go to the null device through the same kind of
     * stream as a real journal's where there is one: a stream of another class sent the compiled flush back to the
     * interpreter at the run's first record.
     */
    public static RequestJournal discarding() {
        try {
            return new RequestJournal(Path.of(FILE_NAME), nullDevice());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static OutputStream nullDevice() {
        Path device = Path.of("/dev/null");
        try {
            if (Files.isWritable(device)) return Files.newOutputStream(device, StandardOpenOption.WRITE);
        } catch (IOException | UnsupportedOperationException e) {
            // no null device to open: any stream that drops the bytes will do
        }
        return OutputStream.nullOutputStream();
    }

    public Path file() {
        return file;
    }

    /** Appends one record and flushes it to the operating system. */
    public synchronized void append(RequestRecord record) {
        write(LINE, record);
    }

    /** The same for a request of an open loop, with how late it went out against its schedule. */
    public synchronized void append(RequestRecord record, long sendLagNanos) {
        write(LINE.withAttribute(SEND_LAG_FIELD, sendLagNanos), record);
    }

    /**
     * The same with the client's own delay after the send stamp ({@link #CLIENT_DELAY_FIELD}), for a request this
     * machine sent: the send lag to when it left the client is {@code sendLagNanos + clientDelayNanos}.
     */
    public synchronized void append(RequestRecord record, long sendLagNanos, long clientDelayNanos) {
        write(LINE.withAttribute(SEND_LAG_FIELD, sendLagNanos).withAttribute(CLIENT_DELAY_FIELD, clientDelayNanos),
                record);
    }

    private void write(ObjectWriter writer, RequestRecord record) {
        if (broken) throw new UncheckedIOException(new IOException("could not append to " + file + ": an earlier "
                + "record could not be written"));
        try {
            writer.writeValue(generator, record);
            generator.writeRaw('\n');
            generator.flush();
            wholeBytes = out.count;
        } catch (IOException e) {
            broken = true;
            cutToWholeRecords();
            throw new UncheckedIOException("could not append to " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * After a failed append (a full disk), removes the cut record's bytes that reached the file, so the journal holds
     * whole records only; cutting frees space, so it works on a full disk too. A file that cannot be cut (e.g. a
     * device) is left: its reader skips a cut last line.
     */
    private void cutToWholeRecords() {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            if (channel.size() > wholeBytes) channel.truncate(wholeBytes);
        } catch (IOException | UnsupportedOperationException e) {
            // left as it is: read() keeps the whole records before a cut last line
        }
    }

    @Override
    public synchronized void close() throws IOException {
        if (broken) {
            out.close(); // not the generator's: its buffer holds the cut record, which is not to be written again
            return;
        }
        generator.close();
    }

    /** Counts the bytes written through it; writes arrays whole (FilterOutputStream's would go byte by byte). */
    private static final class CountingStream extends FilterOutputStream {
        private long count;

        CountingStream(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            count += len;
        }
    }

    /**
     * Reads a journal back, warning on standard error about an incomplete last line (see
     * {@link #read(Path, Consumer)}).
     */
    public static List<RequestRecord> read(Path file) throws IOException {
        return read(file, warning -> System.err.println("llmperf4j: warning: " + warning));
    }

    /**
     * Reads a journal back. A killed run can leave its last line half-written (no final newline, not a whole JSON
     * object): every complete record before it is kept and {@code warnings} gets one line naming the file and the
     * line. Any other malformed line, in the middle or complete, fails with the file, its 1-based line number and
     * the reason in plain words.
     *
     * @throws IOException naming the file, the line and why it is not a request record
     */
    public static List<RequestRecord> read(Path file, Consumer<String> warnings) throws IOException {
        List<RequestRecord> records = new ArrayList<>();
        String text = Files.readString(file, StandardCharsets.UTF_8);
        boolean endsWithNewline = text.isEmpty() || text.endsWith("\n");
        List<String> lines = text.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).isBlank()) {
                continue;
            }
            try {
                records.add(parse(lines.get(i)));
            } catch (IOException e) {
                String reason = reason(e);
                if (i == lines.size() - 1 && !endsWithNewline) {
                    warnings.accept(file + " line " + (i + 1) + " is incomplete (" + reason + "): the run was "
                            + "probably stopped while writing it; kept the " + records.size() + " complete record"
                            + (records.size() == 1 ? "" : "s") + " before it");
                    break;
                }
                throw new IOException(file + " line " + (i + 1) + ": not a request record: " + reason, e);
            }
        }
        return records;
    }

    /**
     * How many whole lines the journal holds without parsing them: the non-blank lines that end with a newline, so a
     * last line cut by a kill or a full disk does not count as a request.
     */
    public static long wholeLines(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        int end = text.lastIndexOf('\n');
        return end < 0 ? 0 : text.substring(0, end + 1).lines().filter(line -> !line.isBlank()).count();
    }

    /**
     * Each request's {@link #SEND_LAG_FIELD} by {@code client_request_id}: how late it went out against its schedule
     * (an open loop, or sessions); empty for a run without a schedule. Lines that are not whole records are skipped
     * ({@link #read} reports them).
     */
    public static Map<String, Long> readSendLags(Path file) throws IOException {
        Map<String, Long> lags = new java.util.HashMap<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank()) continue;
            JsonNode node;
            try {
                node = JSON.readTree(line);
            } catch (IOException e) {
                continue;
            }
            JsonNode lag = node.path(SEND_LAG_FIELD);
            JsonNode id = node.path("client_request_id");
            if (lag.isIntegralNumber() && id.isTextual()) lags.put(id.asText(), lag.asLong());
        }
        return lags;
    }

    private static RequestRecord parse(String line) throws IOException {
        JsonNode node = JSON.readTree(line);
        if (!(node instanceof ObjectNode object)) {
            throw new IOException("not a JSON object");
        }
        LATER_TIME_FIELDS.forEach((name, never) -> {
            if (!object.has(name)) object.put(name, never);
        });
        object.remove(SEND_LAG_FIELD); // the run's schedule, not the record's: read by notebooks, not back here
        object.remove(CLIENT_DELAY_FIELD);
        return JSON.treeToValue(object, RequestRecord.class);
    }

    /** Why a line did not parse, in plain words: Jackson's message without its source excerpt and location. */
    static String reason(IOException e) {
        String message = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
        if (message == null) return e.getClass().getSimpleName();
        message = message.lines().findFirst().orElse("");
        message = SOURCE_EXCERPT.matcher(message).replaceAll("");
        return message.strip();
    }
}
