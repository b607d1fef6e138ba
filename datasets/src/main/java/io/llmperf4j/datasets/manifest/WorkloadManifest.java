package io.llmperf4j.datasets.manifest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.datasets.DatasetFormatException;
import io.llmperf4j.datasets.JsonMessages;
import io.llmperf4j.datasets.images.ImageAttachment;
import io.llmperf4j.datasets.images.ImageLibrary;
import io.llmperf4j.datasets.images.ImageManifestEntry;
import io.llmperf4j.model.ImageInput;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.disk.WholeFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A replayable workload: a JSON Lines file whose first line is the {@link ManifestHeader} and every further line one
 * request, so an A/B comparison can send exactly the same prompts to both sides.
 *
 * <pre>
 * {"format":"llmperf4j-workload","version":1,"kind":"synthetic","tokenizer":"llama-2 (built in)","seed":11111,
 *  "source":"llmperf4j-verse-v1","source_sha256":"b3b5…","generation":{…},"sampling_params":{"temperature":0.7},
 *  "request_count":2,"requests_sha256":"…"}
 * {"index":0,"prompt":"…","number_input_tokens":538,"max_tokens":167}
 * {"index":1,"prompt":"…","number_input_tokens":581,"max_tokens":92}
 * </pre>
 * (The header is one line; it is wrapped here.) UTF-8, {@code "\n"} line ends, a final {@code "\n"}, keys in this
 * order, no spaces: the same workload always gives the same bytes, and {@link #read} then {@link #write} gives the
 * file back byte for byte. {@code requests_sha256} is the SHA-256 of all request lines (each with its {@code "\n"});
 * {@link #read} checks it and {@code request_count}, so a truncated or edited file is caught. A request with images
 * has one more field, {@code "images"}: an array of {@link ImageManifestEntry} objects (source, seed or path, size,
 * bytes, SHA-256), each made again on {@link #read} and checked against its digest. Delete
 * {@code requests_sha256} from the header to replay a deliberately edited file.
 *
 * @param header   what made the requests
 * @param requests the requests in order, indexed 0..n-1
 */
public record WorkloadManifest(ManifestHeader header, List<RequestSpec> requests) {
    public static final String FORMAT = "llmperf4j-workload";
    public static final int VERSION = 1;
    private static final String WHAT = "Workload manifest";
    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** Writes emoji and other supplementary characters as UTF-8, not as escaped surrogate pairs. */
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8).build();
    private static final TypeReference<LinkedHashMap<String, Object>> MAP = new TypeReference<>() {
    };
    private static final List<String> HEADER_FIELDS = List.of("format", "version", "kind", "tokenizer", "seed", "source",
            "source_sha256", "generation", "sampling_params", "request_count", "requests_sha256");
    private static final List<String> REQUEST_FIELDS = List.of("index", "prompt", "number_input_tokens", "max_tokens");
    /**
     * Optional request fields, written only when the request has them: its system prompt (shared-prefix groups), its
     * session and turn, its images.
     */
    private static final List<String> OPTIONAL_REQUEST_FIELDS = List.of("system_prompt", "session_id", "turn",
            "images");

    public WorkloadManifest {
        Objects.requireNonNull(header, "header");
        requests = List.copyOf(requests);
        for (int i = 0; i < requests.size(); i++) {
            if (requests.get(i).index() != i) {
                throw new IllegalArgumentException("request " + i + " has index " + requests.get(i).index());
            }
        }
    }

    /**
     * Writes {@code requests} under {@code header} to {@code file} (replacing it; parent folders are created), whole
     * or not at all ({@link WholeFiles}): a full disk leaves the earlier file or none under its name, never a cut one
     * that a later {@code --workload} run would read as a shorter workload.
     *
     * @throws IllegalArgumentException when the requests are not indexed 0..n-1
     * @throws UncheckedIOException naming the file when it cannot be written (its cause a
     *                              {@link io.llmperf4j.model.disk.ResultsNotWrittenException})
     */
    public static void write(Path file, List<RequestSpec> requests, ManifestHeader header) {
        byte[] bytes = new WorkloadManifest(header, requests).toBytes();
        try {
            WholeFiles.writeOne(file, staged -> Files.write(staged, bytes));
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the workload manifest " + file + ": " + e.getMessage(), e);
        }
    }

    /** {@link #write(Path, List, ManifestHeader)} for this manifest. */
    public void write(Path file) {
        write(file, requests, header);
    }

    /** The file's bytes. */
    public byte[] toBytes() {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (RequestSpec request : requests) {
            writeLine(body, generator -> {
                generator.writeStartObject();
                generator.writeNumberField("index", request.index());
                generator.writeStringField("prompt", request.prompt());
                generator.writeNumberField("number_input_tokens", request.numberInputTokens());
                generator.writeNumberField("max_tokens", request.maxTokens());
                RequestInputs inputs = request.inputs();
                if (inputs.systemPrompt() != null) generator.writeStringField("system_prompt", inputs.systemPrompt());
                if (inputs.sessionId() != null) {
                    generator.writeStringField("session_id", inputs.sessionId());
                    generator.writeNumberField("turn", inputs.turn());
                }
                if (inputs.hasImages()) {
                    generator.writeArrayFieldStart("images"); // ImageManifestEntry: digest, size, seed or path
                    for (ImageInput image : inputs.images()) {
                        generator.writeObject(ImageManifestEntry.toJson(image));
                    }
                    generator.writeEndArray();
                }
                generator.writeEndObject();
            });
        }
        byte[] requestLines = body.toByteArray();
        ByteArrayOutputStream file = new ByteArrayOutputStream(requestLines.length + 1024);
        writeLine(file, generator -> {
            generator.writeStartObject();
            generator.writeStringField("format", FORMAT);
            generator.writeNumberField("version", VERSION);
            generator.writeStringField("kind", header.kind());
            generator.writeStringField("tokenizer", header.tokenizer());
            generator.writeNumberField("seed", header.seed());
            generator.writeStringField("source", header.source());
            generator.writeStringField("source_sha256", header.sourceSha256());
            generator.writeObjectField("generation", header.generation());
            generator.writeObjectField("sampling_params", header.samplingParams());
            generator.writeNumberField("request_count", requests.size());
            generator.writeStringField("requests_sha256", sha256Hex(requestLines));
            generator.writeEndObject();
        });
        file.writeBytes(requestLines);
        return file.toByteArray();
    }

    /**
     * The {@code request_count} of a manifest's header line, without reading its requests (a run sizes its load
     * plan with it before {@link #read} reads, and checks, the whole file).
     *
     * @throws DatasetFormatException when the first line is not a header with a whole request_count
     * @throws UncheckedIOException   naming the file when it cannot be read
     */
    public static int requestCount(Path file) {
        JsonNode head = parseObject(file, 1, firstLine(file));
        long count = integral(file, 1, head, "request_count");
        if (count < 0 || count > Integer.MAX_VALUE) throw error(file, "line 1", "request_count " + count + " is out of range");
        return (int) count;
    }

    /**
     * The header of a manifest, checked as {@link #read} checks it, without reading its requests (a run shapes its
     * plan with it, as with {@link #requestCount}, before {@link #read} reads and checks the whole file).
     *
     * @throws DatasetFormatException when the first line is not a manifest header
     * @throws UncheckedIOException   naming the file when it cannot be read
     */
    public static ManifestHeader header(Path file) {
        return header(file, parseObject(file, 1, firstLine(file)));
    }

    private static String firstLine(Path file) {
        String first;
        try (var reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            first = reader.readLine();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read workload manifest " + file + ": " + e.getMessage(), e);
        }
        if (first == null || first.isEmpty()) {
            throw error(file, "line 1", "the file is empty; a manifest starts with its header line");
        }
        return first;
    }

    /**
     * Reads a manifest {@link #write} wrote.
     *
     * @throws DatasetFormatException naming the file and the 1-based line that is malformed, or what does not match
     *                                (request count, digest)
     * @throws UncheckedIOException   naming the file when it cannot be read
     */
    public static WorkloadManifest read(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read workload manifest " + file + ": " + e.getMessage(), e);
        }
        String text = decodeUtf8(file, bytes);
        if (text.isEmpty()) throw error(file, "line 1", "the file is empty; a manifest starts with its header line");
        if (!text.endsWith("\n")) throw error(file, "line " + text.split("\n", -1).length, "the last line has no final newline (is the file truncated?)");
        String[] lines = text.substring(0, text.length() - 1).split("\n", -1);

        JsonNode head = parseObject(file, 1, lines[0]);
        ManifestHeader header = header(file, head);
        long expectedCount = integral(file, 1, head, "request_count");

        List<RequestSpec> requests = new ArrayList<>(lines.length - 1);
        List<String> knownRequestFields = new ArrayList<>(REQUEST_FIELDS);
        knownRequestFields.addAll(OPTIONAL_REQUEST_FIELDS);
        ImageLibrary images = new ImageLibrary(); // every request sending an image shares one copy of it
        for (int i = 1; i < lines.length; i++) {
            int lineNumber = i + 1;
            JsonNode node = parseObject(file, lineNumber, lines[i]);
            checkFields(file, lineNumber, node, knownRequestFields, REQUEST_FIELDS);
            long index = integral(file, lineNumber, node, "index");
            if (index != i - 1) throw error(file, "line " + lineNumber, "index " + index + " where " + (i - 1) + " was expected");
            String prompt = text(file, lineNumber, node, "prompt", false);
            long inputTokens = integral(file, lineNumber, node, "number_input_tokens");
            long maxTokens = integral(file, lineNumber, node, "max_tokens");
            if (inputTokens < 0 || inputTokens > Integer.MAX_VALUE) {
                throw error(file, "line " + lineNumber, "number_input_tokens " + inputTokens + " is out of range");
            }
            if (maxTokens < 1 || maxTokens > Integer.MAX_VALUE) {
                throw error(file, "line " + lineNumber, "max_tokens " + maxTokens + " must be a positive int");
            }
            String systemPrompt = node.has("system_prompt") ? text(file, lineNumber, node, "system_prompt", false) : null;
            String sessionId = node.has("session_id") ? text(file, lineNumber, node, "session_id", false) : null;
            int turn = -1;
            if (sessionId != null) {
                if (!node.has("turn")) throw error(file, "line " + lineNumber, "session_id without a turn");
                long t = integral(file, lineNumber, node, "turn");
                if (t < 0 || t > Integer.MAX_VALUE) throw error(file, "line " + lineNumber, "turn " + t + " is out of range");
                turn = (int) t;
            }
            RequestInputs inputs = systemPrompt == null && sessionId == null ? RequestInputs.TEXT_ONLY
                    : new RequestInputs(systemPrompt, List.of(), List.of(), sessionId, turn);
            RequestSpec request = new RequestSpec((int) index, prompt, (int) inputTokens, (int) maxTokens, inputs);
            if (node.has("images")) request = ImageAttachment.withImages(request, images(file, lineNumber, node, images));
            requests.add(request);
        }
        if (expectedCount != requests.size()) {
            throw error(file, "line 1", "request_count is " + expectedCount + " but the file holds " + requests.size()
                    + " requests (is it truncated?)");
        }
        JsonNode digest = head.get("requests_sha256");
        if (digest != null && !digest.isNull()) {
            int headerBytes = lines[0].getBytes(StandardCharsets.UTF_8).length + 1;
            String actual = sha256Hex(Arrays.copyOfRange(bytes, headerBytes, bytes.length));
            if (!actual.equals(digest.asText())) {
                throw error(file, "line 1", "requests_sha256 does not match the request lines (they were changed "
                        + "after writing); remove requests_sha256 from the header to use an edited manifest");
            }
        }
        return new WorkloadManifest(header, requests);
    }

    /** The header line checked: its fields, format and version. */
    private static ManifestHeader header(Path file, JsonNode head) {
        checkFields(file, 1, head, HEADER_FIELDS, List.of("format", "version", "kind", "tokenizer", "seed", "source",
                "generation", "sampling_params", "request_count"));
        if (!FORMAT.equals(head.get("format").asText(null)) || !head.get("format").isTextual()) {
            throw error(file, "line 1", "format is " + head.get("format") + ", not \"" + FORMAT + "\": not a workload manifest");
        }
        if (!head.get("version").isInt() || head.get("version").intValue() != VERSION) {
            throw error(file, "line 1", "version " + head.get("version") + " is not supported (this build reads " + VERSION + ")");
        }
        return new ManifestHeader(
                text(file, 1, head, "kind", false), text(file, 1, head, "tokenizer", false),
                integral(file, 1, head, "seed"), text(file, 1, head, "source", false),
                text(file, 1, head, "source_sha256", true), object(file, head, "generation"),
                object(file, head, "sampling_params"));
    }

    private static List<ImageInput> images(Path file, int line, JsonNode node, ImageLibrary library) {
        JsonNode entries = node.get("images");
        if (!entries.isArray()) throw error(file, "line " + line, "images must be a JSON array");
        List<ImageInput> images = new ArrayList<>(entries.size());
        for (int j = 0; j < entries.size(); j++) {
            try {
                images.add(ImageManifestEntry.fromJson(entries.get(j), library));
            } catch (IllegalArgumentException | UncheckedIOException e) {
                throw error(file, "line " + line + ", images[" + j + "]", e.getMessage());
            }
        }
        return images;
    }

    private static String decodeUtf8(Path file, byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult result = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(in, out, true);
        if (result.isError()) {
            int line = 1;
            for (int i = 0; i < in.position(); i++) if (bytes[i] == '\n') line++;
            throw error(file, "line " + line, "not UTF-8 text (byte " + in.position() + ")");
        }
        return out.flip().toString();
    }

    private interface LineWriter {
        void write(JsonGenerator generator) throws IOException;
    }

    private static void writeLine(ByteArrayOutputStream out, LineWriter writer) {
        try (JsonGenerator generator = JSON.createGenerator(out)) {
            generator.setCodec(MAPPER);
            generator.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            writer.write(generator);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.write('\n');
    }

    private static JsonNode parseObject(Path file, int line, String text) {
        if (text.isBlank()) throw error(file, "line " + line, "the line is empty");
        JsonNode node;
        try {
            node = MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw error(file, "line " + line, "not valid JSON: " + JsonMessages.clean(e));
        }
        if (node == null || !node.isObject()) throw error(file, "line " + line, "not a JSON object");
        return node;
    }

    private static void checkFields(Path file, int line, JsonNode node, List<String> known, List<String> required) {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) throw error(file, "line " + line, "unknown field \"" + name + "\"");
        }
        for (String name : required) {
            if (!node.has(name)) throw error(file, "line " + line, "missing field \"" + name + "\"");
        }
    }

    private static String text(Path file, int line, JsonNode node, String field, boolean nullable) {
        JsonNode value = node.get(field);
        if (nullable && (value == null || value.isNull())) return null;
        if (value == null || !value.isTextual()) throw error(file, "line " + line, field + " must be a string");
        return value.asText();
    }

    private static long integral(Path file, int line, JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
            throw error(file, "line " + line, field + " must be an integer, not " + value);
        }
        return value.longValue();
    }

    private static Map<String, Object> object(Path file, JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (!value.isObject()) throw error(file, "line 1", field + " must be a JSON object");
        return MAPPER.convertValue(value, MAP);
    }

    private static DatasetFormatException error(Path file, String location, String problem) {
        return new DatasetFormatException(WHAT, file, location, problem);
    }

    private static String sha256Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks SHA-256", e);
        }
    }
}
