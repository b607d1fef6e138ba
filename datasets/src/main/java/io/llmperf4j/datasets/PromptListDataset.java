package io.llmperf4j.datasets;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.datasets.images.ImageAttachment;
import io.llmperf4j.datasets.images.ImageReferences;
import io.llmperf4j.model.ImageInput;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.prompt.LengthDistribution;
import io.llmperf4j.tokenize.prompt.PythonRandom;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JSON Lines file of prompts ({@code prompts:FILE}): one object per line, {@code {"prompt": "...",
 * "max_tokens": 128}}, {@code max_tokens} optional, and {@code "images": ["cat.png", "https://host/dog.jpg"]}
 * optional (paths relative to the file, or URLs; see {@link ImageReferences}). Other keys are ignored; blank lines
 * are skipped. Requests follow the file's order (no shuffle), wrapping around when more are asked for than the file
 * holds.
 */
public final class PromptListDataset {
    private static final String WHAT = "Prompt file";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Path file;
    private final String sha256;
    private final List<Entry> entries;

    /** One line: the prompt, its {@code max_tokens} (0 when absent), its 1-based line number and its images. */
    record Entry(String prompt, int maxTokens, int line, List<String> images) {
    }

    private PromptListDataset(Path file, String sha256, List<Entry> entries) {
        this.file = file;
        this.sha256 = sha256;
        this.entries = List.copyOf(entries);
    }

    /**
     * @throws DatasetFormatException naming the file and the 1-based line of a malformed entry (not JSON, not an
     *                                object, no string {@code prompt}, an empty prompt, a {@code max_tokens} that is
     *                                not a positive integer), or when it holds no prompt
     */
    public static PromptListDataset load(Path file) {
        Path absolute = file.toAbsolutePath().normalize();
        if (!Files.isRegularFile(absolute)) {
            throw new IllegalArgumentException(WHAT + " " + absolute
                    + (Files.exists(absolute) ? " is not a regular file" : " does not exist"));
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(absolute);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + WHAT + " " + absolute + ": " + e.getMessage(), e);
        }
        String text = decode(absolute, bytes);
        if (text.startsWith("\uFEFF")) text = text.substring(1);
        List<Entry> entries = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int lineNumber = i + 1;
            if (lines[i].isBlank()) continue;
            JsonNode node;
            try {
                node = MAPPER.readTree(lines[i]);
            } catch (JsonProcessingException e) {
                throw error(absolute, lineNumber, "not valid JSON: " + JsonMessages.clean(e));
            }
            if (node == null || !node.isObject()) throw error(absolute, lineNumber, "expected a JSON object {\"prompt\": ...}");
            JsonNode prompt = node.get("prompt");
            if (prompt == null) throw error(absolute, lineNumber, "no \"prompt\"");
            if (!prompt.isTextual()) throw error(absolute, lineNumber, "\"prompt\" must be a string");
            if (prompt.asText().isEmpty()) throw error(absolute, lineNumber, "\"prompt\" is empty");
            JsonNode maxTokens = node.get("max_tokens");
            int max = 0;
            if (maxTokens != null && !maxTokens.isNull()) {
                if (!maxTokens.isIntegralNumber() || !maxTokens.canConvertToInt() || maxTokens.intValue() < 1) {
                    throw error(absolute, lineNumber, "\"max_tokens\" must be a positive integer, not " + maxTokens);
                }
                max = maxTokens.intValue();
            }
            entries.add(new Entry(prompt.asText(), max, lineNumber, images(absolute, lineNumber, node.get("images"))));
        }
        if (entries.isEmpty()) throw error(absolute, 1, "the file holds no prompt");
        return new PromptListDataset(absolute, Hashing.sha256Hex(bytes), entries);
    }

    public Path file() {
        return file;
    }

    /** The id workloads record: the absolute path. */
    public String id() {
        return file.toString();
    }

    /** Lowercase hex SHA-256 of the file's bytes. */
    public String sha256() {
        return sha256;
    }

    /** Prompts in the file. */
    public int size() {
        return entries.size();
    }

    /**
     * {@code count} requests in file order, wrapping around ({@code count <= 0}: one per line); {@code generation}
     * records {@code distinct_prompts} (the lines sent) and, when it wraps, {@code passes}. numberInputTokens is
     * {@code tokenizer.count(prompt)}; {@code max_tokens} the line's own, else a draw from {@code outputLengths}
     * with {@code PythonRandom(seed)}, one draw per such request in order.
     *
     * @param outputLengths may be {@code null} when every line has {@code max_tokens}
     * @throws DatasetFormatException naming the first line without {@code max_tokens} when {@code outputLengths} is
     *                                {@code null}
     */
    public Workload workload(Tokenizer tokenizer, int count, long seed, LengthDistribution outputLengths) {
        return workload(tokenizer, count, seed, outputLengths, ImageReferences.dataMode(file.getParent()));
    }

    /**
     * As {@link #workload(Tokenizer, int, long, LengthDistribution)}, the lines' images resolved by {@code images}
     * (each distinct image made once and shared by every request that sends it).
     *
     * @throws DatasetFormatException naming the line of an image that cannot be sent
     */
    public Workload workload(Tokenizer tokenizer, int count, long seed, LengthDistribution outputLengths,
                             ImageReferences images) {
        Workload.requireEncoding(tokenizer);
        int n = count <= 0 ? entries.size() : count;
        PythonRandom random = new PythonRandom(seed);
        Map<String, Integer> tokensByPrompt = new HashMap<>();
        List<RequestSpec> requests = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Entry entry = entries.get(i % entries.size());
            int maxTokens = entry.maxTokens();
            if (maxTokens == 0) {
                if (outputLengths == null) {
                    throw error(file, entry.line(), "no \"max_tokens\": give it on every line, or --output-lengths "
                            + "DIST (e.g. normal:150,10) for the lines without one");
                }
                maxTokens = outputLengths.sample(random);
            }
            int tokens = tokensByPrompt.computeIfAbsent(entry.prompt(), tokenizer::count);
            RequestSpec request = new RequestSpec(i, entry.prompt(), tokens, maxTokens);
            if (!entry.images().isEmpty()) request = ImageAttachment.withImages(request, resolve(entry, images));
            requests.add(request);
        }
        Map<String, Object> generation = new LinkedHashMap<>();
        generation.put("dataset", "prompts");
        generation.put("max_tokens", "from file");
        if (outputLengths != null) generation.put("output_lengths", outputLengths.parameters()); // lines without one
        generation.put("request_count", n);
        generation.put("distinct_prompts", Math.min(n, entries.size()));
        // the run says so: a prompt sent again can come from the server's prefix cache
        if (n > entries.size()) generation.put("passes", (n + entries.size() - 1) / entries.size());
        return new Workload(Workload.PROMPTS, id(), sha256, tokenizer.id(), seed, generation, requests);
    }

    private List<ImageInput> resolve(Entry entry, ImageReferences references) {
        List<ImageInput> images = new ArrayList<>(entry.images().size());
        for (String reference : entry.images()) {
            try {
                images.add(references.resolve(reference));
            } catch (IllegalArgumentException | UncheckedIOException e) {
                throw error(file, entry.line(), e.getMessage());
            }
        }
        return images;
    }

    private static List<String> images(Path file, int line, JsonNode images) {
        if (images == null || images.isNull()) return List.of();
        if (!images.isArray()) throw error(file, line, "\"images\" must be an array of paths or URLs");
        List<String> references = new ArrayList<>(images.size());
        for (JsonNode image : images) {
            if (!image.isTextual() || image.asText().isBlank()) {
                throw error(file, line, "\"images\" must hold paths or URLs (strings), not " + image);
            }
            references.add(image.asText());
        }
        return references;
    }

    private static String decode(Path file, byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult result = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(in, out, true);
        if (result.isError()) {
            int line = 1;
            for (int i = 0; i < in.position(); i++) if (bytes[i] == '\n') line++;
            throw error(file, line, "not UTF-8 text");
        }
        return out.flip().toString();
    }

    private static DatasetFormatException error(Path file, int line, String problem) {
        return new DatasetFormatException(WHAT, file, "line " + line, problem);
    }
}
