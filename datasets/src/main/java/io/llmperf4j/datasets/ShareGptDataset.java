package io.llmperf4j.datasets;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.prompt.PythonRandom;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Conversations in ShareGPT form ({@code sharegpt:FILE}), the dataset vLLM's and SGLang's serving benchmarks use by
 * default. Each conversation gives at most one request: its first user turn is the prompt, and the assistant turn
 * right after it is the reply whose token count becomes {@code max_tokens}. Conversations without such a reply are
 * skipped.
 *
 * <p>The file is a JSON array of conversations or JSON Lines (one conversation per line), read as a stream, so
 * large files (the 670 MB ShareGPT_V3 dump) need memory only for the first exchanges. A conversation is an object
 * with a {@code conversations} (or {@code conversation}, {@code messages}) array of turns; a turn is
 * {@code {"from": "human"|"gpt", "value": "..."}} or {@code {"role": "user"|"assistant", "content": "..."}}
 * (content may also be an array of {@code {"type": "text", "text": "..."}} parts). Roles {@code human}/{@code user}
 * ask; {@code gpt}, {@code assistant}, {@code chatgpt}, {@code bard}, {@code bing}, {@code model} reply;
 * {@code system} turns before the first question are the conversation's system prompt, which whole-conversation
 * sessions ({@link #sessions}) send (single exchanges, as vLLM's benchmark, do not); other roles are passed over. Anything else malformed fails the load with the file and the JSON path
 * (and line) of the problem.
 */
public final class ShareGptDataset {
    private static final String WHAT = "ShareGPT file";
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final List<String> TURN_ARRAYS = List.of("conversations", "conversation", "messages");
    private static final Set<String> USER_ROLES = Set.of("human", "user");
    private static final Set<String> ASSISTANT_ROLES = Set.of("gpt", "assistant", "chatgpt", "bard", "bing", "model");

    private final Path file;
    private final String sha256;
    private final int conversationCount;
    private final List<Exchange> exchanges;

    /**
     * A conversation's first prompt and its reply.
     *
     * @param location where the conversation is: {@code $[12]} (JSON array) or {@code line 13} (JSON Lines)
     * @param system   the conversation's system prompt (its {@code system} turns before the first user turn, joined
     *                 by a blank line), or null
     * @param id       the conversation's own {@code id} (a non-blank string), or null
     * @param index    the conversation's place in the file, 0-based, every conversation counted
     */
    record Exchange(String prompt, String reply, String location, List<String> laterTurns, String system, String id,
                    int index) {
    }

    private ShareGptDataset(Path file, String sha256, int conversationCount, List<Exchange> exchanges) {
        this.file = file;
        this.sha256 = sha256;
        this.conversationCount = conversationCount;
        this.exchanges = List.copyOf(exchanges);
    }

    /**
     * Reads {@code file} (a JSON array or JSON Lines; UTF-8) and computes its SHA-256.
     *
     * @throws DatasetFormatException naming the file and where it is malformed (1-based line for JSON Lines, JSON
     *                                path and line for arrays)
     * @throws UncheckedIOException   naming the file when it cannot be read
     */
    public static ShareGptDataset load(Path file) {
        Path absolute = file.toAbsolutePath().normalize();
        if (!Files.isRegularFile(absolute)) {
            throw new IllegalArgumentException(WHAT + " " + absolute
                    + (Files.exists(absolute) ? " is not a regular file" : " does not exist"));
        }
        MessageDigest digest = Hashing.sha256();
        List<Exchange> exchanges = new ArrayList<>();
        int conversations;
        try (InputStream raw = Files.newInputStream(absolute);
             BufferedInputStream in = new BufferedInputStream(new DigestInputStream(raw, digest), 1 << 16)) {
            int[] skippedLines = new int[1];
            int first = firstSignificantByte(in, skippedLines);
            if (first == '[') {
                conversations = readArray(absolute, in, skippedLines[0], exchanges);
            } else if (first == '{') {
                conversations = readLines(absolute, in, skippedLines[0], exchanges);
            } else {
                throw new DatasetFormatException(WHAT, absolute, "line " + (skippedLines[0] + 1), first < 0 ? "the file is empty"
                        : "expected a JSON array of conversations or JSON Lines (one conversation object per line), "
                        + "found '" + (char) first + "'");
            }
            in.transferTo(OutputStream.nullOutputStream()); // digest the whole file
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + WHAT + " " + absolute + ": " + e.getMessage(), e);
        }
        return new ShareGptDataset(absolute, HexFormat.of().formatHex(digest.digest()), conversations, exchanges);
    }

    /** The file's absolute path. */
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

    /** Conversations in the file. */
    public int conversationCount() {
        return conversationCount;
    }

    /** Conversations with a prompt and a reply (before any token filter). */
    public int exchangeCount() {
        return exchanges.size();
    }

    List<Exchange> exchanges() {
        return exchanges;
    }

    /**
     * {@code count} requests: the exchanges shuffled with {@code PythonRandom(seed)}, walked in that order, keeping
     * those within {@code options}' bounds, until {@code count} are found; if fewer pass, they are used again in the
     * same order (request {@code i} is the {@code (i mod passed)}-th), and {@code generation} says how often:
     * {@code passes}, beside {@code distinct_prompts}. numberInputTokens is
     * {@code tokenizer.count(prompt)}; {@code max_tokens} the reply's count without special tokens, or a draw from
     * {@link ShareGptOptions#outputLengths()} (from the same random generator, after the shuffle, one per request).
     * Only exchanges that are walked past get tokenized.
     *
     * @throws IllegalArgumentException when no exchange passes the bounds (the message gives the counts)
     */
    public Workload sample(Tokenizer tokenizer, int count, long seed, ShareGptOptions options) {
        Workload.requireEncoding(tokenizer);
        Objects.requireNonNull(options, "options");
        if (count < 0) throw new IllegalArgumentException("request count (" + count + ") must be >= 0");
        PythonRandom random = new PythonRandom(seed);
        List<Integer> order = new ArrayList<>(exchanges.size());
        for (int i = 0; i < exchanges.size(); i++) order.add(i);
        random.shuffle(order);

        List<Eligible> eligible = new ArrayList<>();
        int promptTooShort = 0;
        int promptTooLong = 0;
        int replyTooShort = 0;
        int replyTooLong = 0;
        for (int i = 0; i < order.size() && eligible.size() < count; i++) {
            Exchange exchange = exchanges.get(order.get(i));
            int promptTokens = tokenizer.count(exchange.prompt());
            if (promptTokens < options.minPromptTokens()) {
                promptTooShort++;
                continue;
            }
            if (promptTokens > options.maxPromptTokens()) {
                promptTooLong++;
                continue;
            }
            int replyTokens = tokenizer.countWithoutSpecialTokens(exchange.reply());
            if (replyTokens < options.minOutputTokens()) {
                replyTooShort++;
                continue;
            }
            if (replyTokens > options.maxOutputTokens()) {
                replyTooLong++;
                continue;
            }
            eligible.add(new Eligible(exchange.prompt(), promptTokens, replyTokens));
        }
        if (eligible.isEmpty() && count > 0) {
            throw new IllegalArgumentException("No conversation of " + WHAT + " " + file + " fits: " + conversationCount
                    + " conversations, " + exchanges.size() + " with a prompt and a reply; of those " + promptTooShort
                    + " prompts below " + options.minPromptTokens() + " tokens, " + promptTooLong + " above "
                    + options.maxPromptTokens() + ", " + replyTooShort + " replies below " + options.minOutputTokens()
                    + " tokens, " + replyTooLong + " above " + options.maxOutputTokens() + " (counted with "
                    + tokenizer.id() + ")");
        }
        List<RequestSpec> requests = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Eligible pick = eligible.get(i % eligible.size());
            int maxTokens = options.outputLengths() == null ? pick.replyTokens : options.outputLengths().sample(random);
            requests.add(new RequestSpec(i, pick.prompt, pick.promptTokens, maxTokens));
        }
        Map<String, Object> generation = new LinkedHashMap<>();
        generation.put("dataset", "sharegpt");
        generation.putAll(options.parameters());
        generation.put("request_count", count);
        generation.put("distinct_prompts", Math.min(count, eligible.size()));
        // the run says so: a prompt sent again can come from the server's prefix cache
        if (count > eligible.size()) generation.put("passes", (count + eligible.size() - 1) / eligible.size());
        return new Workload(Workload.SHAREGPT, id(), sha256, tokenizer.id(), seed, generation, requests);
    }

    private record Eligible(String prompt, int promptTokens, int replyTokens) {
    }

    /**
     * {@code count} requests that are the user turns of whole conversations (multi-turn sessions): conversations
     * shuffled with {@code PythonRandom(seed)}, those whose first prompt and reply pass {@code options}' bounds taken in
     * that order, each contributing all its user turns (turn k's max_tokens = the k-th reply's token count, or a draw
     * from {@link ShareGptOptions#outputLengths()}); conversations are reused in the same order when more turns are
     * needed, the last one cut short at {@code count}. A session's id is its conversation's ({@link #sessionNames}),
     * a later pass's suffixed with the pass, {@code ~1}, {@code ~2}, as the engine names a workload's sessions
     * started again ({@code s0~1}). When they are played more than once, {@code generation} says how: {@code
     * conversations} (those that fit), {@code conversation_turns} (their user turns) and {@code passes}.
     *
     * @throws IllegalArgumentException when no conversation passes the bounds
     */
    public Workload sessions(Tokenizer tokenizer, int count, long seed, ShareGptOptions options) {
        Workload.requireEncoding(tokenizer);
        Objects.requireNonNull(options, "options");
        PythonRandom random = new PythonRandom(seed);
        List<Integer> order = new ArrayList<>(exchanges.size());
        for (int i = 0; i < exchanges.size(); i++) order.add(i);
        random.shuffle(order);
        List<Integer> eligible = new ArrayList<>();
        int turnsFound = 0;
        for (int i = 0; i < order.size() && turnsFound < count; i++) {
            Exchange e = exchanges.get(order.get(i));
            int promptTokens = tokenizer.count(e.prompt());
            int replyTokens = tokenizer.countWithoutSpecialTokens(e.reply());
            if (promptTokens < options.minPromptTokens() || promptTokens > options.maxPromptTokens()
                    || replyTokens < options.minOutputTokens() || replyTokens > options.maxOutputTokens()) {
                continue;
            }
            eligible.add(order.get(i));
            turnsFound += 1 + e.laterTurns().size() / 2;
        }
        if (eligible.isEmpty() && count > 0) {
            throw new IllegalArgumentException("No conversation of " + WHAT + " " + file + " fits the prompt and "
                    + "reply bounds (" + exchanges.size() + " conversations with a prompt and a reply, counted with "
                    + tokenizer.id() + ")");
        }
        List<String> names = sessionNames(eligible.stream().map(exchanges::get).toList());
        List<RequestSpec> requests = new ArrayList<>(count);
        int sessions = 0;
        int passes = 0;
        for (int pass = 0; requests.size() < count; pass++) {
            passes = pass + 1;
            for (int k = 0; k < eligible.size() && requests.size() < count; k++) {
                Exchange e = exchanges.get(eligible.get(k));
                List<String> turns = new ArrayList<>();
                turns.add(e.prompt());
                turns.add(e.reply());
                turns.addAll(e.laterTurns());
                String sessionId = pass == 0 ? names.get(k) : names.get(k) + "~" + pass;
                sessions++;
                for (int t = 0; t + 1 < turns.size() && requests.size() < count; t += 2) {
                    String user = turns.get(t);
                    int maxTokens = options.outputLengths() == null
                            ? Math.max(1, tokenizer.countWithoutSpecialTokens(turns.get(t + 1)))
                            : options.outputLengths().sample(random);
                    // the first turn's count includes the system prompt: later turns add their history to it
                    int tokens = t == 0 && e.system() != null
                            ? tokenizer.count(e.system() + SharedPrefix.SEPARATOR + user) : tokenizer.count(user);
                    requests.add(new RequestSpec(requests.size(), user, tokens, maxTokens,
                            new RequestInputs(e.system(), List.of(), List.of(), sessionId, t / 2)));
                }
            }
        }
        Map<String, Object> generation = new LinkedHashMap<>();
        generation.put("dataset", "sharegpt");
        generation.putAll(options.parameters());
        generation.put("request_count", count);
        generation.put("multi_turn", true);
        generation.put("sessions", sessions);
        if (passes > 1) { // the run says so: a replayed conversation's prompts can come from the server's cache
            generation.put("conversations", eligible.size());
            generation.put("conversation_turns", turnsFound);
            generation.put("passes", passes);
        }
        return new Workload(Workload.SHAREGPT, id(), sha256, tokenizer.id(), seed, generation, requests);
    }

    /**
     * The session ids of {@code conversations}: each one's own {@code id} from the dataset, else {@code s<its index in
     * the file>}; an id met earlier in the file (a dataset's ids need not be unique) takes the index form too, so that
     * no two sessions share an id, whatever order the seed plays them in.
     */
    static List<String> sessionNames(List<Exchange> conversations) {
        List<Integer> byPlace = new ArrayList<>(conversations.size());
        for (int i = 0; i < conversations.size(); i++) byPlace.add(i);
        byPlace.sort(Comparator.comparingInt(i -> conversations.get(i).index()));
        Set<String> used = new HashSet<>();
        String[] names = new String[conversations.size()];
        for (int i : byPlace) {
            Exchange e = conversations.get(i);
            String name = e.id() != null && !used.contains(e.id()) ? e.id() : "s" + e.index();
            for (int n = 1; used.contains(name); n++) name = "s" + e.index() + "-" + n; // s7 taken as a dataset's id
            used.add(name);
            names[i] = name;
        }
        return List.of(names);
    }

    // ---- reading ----

    /** Skips a UTF-8 byte order mark and white space; counts the newlines skipped into {@code skippedLines[0]}. */
    private static int firstSignificantByte(BufferedInputStream in, int[] skippedLines) throws IOException {
        in.mark(8);
        int[] bom = {0xEF, 0xBB, 0xBF};
        int matched = 0;
        for (int b; matched < 3 && (b = in.read()) == bom[matched]; ) matched++;
        if (matched < 3) in.reset();
        while (true) {
            in.mark(1);
            int b = in.read();
            if (b == '\n') skippedLines[0]++;
            if (b != ' ' && b != '\t' && b != '\n' && b != '\r') {
                in.reset();
                return b;
            }
        }
    }

    private static int readArray(Path file, InputStream in, int lineOffset, List<Exchange> out) throws IOException {
        int index = 0;
        try (JsonParser parser = MAPPER.getFactory().createParser(in)) {
            parser.disable(JsonParser.Feature.AUTO_CLOSE_SOURCE);
            parser.nextToken(); // START_ARRAY
            for (JsonToken token; (token = parser.nextToken()) != JsonToken.END_ARRAY; index++) {
                String path = "$[" + index + "]";
                if (token == null) throw new DatasetFormatException(WHAT, file, path, "the file ends inside the array");
                long line = parser.currentTokenLocation().getLineNr() + lineOffset;
                if (token != JsonToken.START_OBJECT) {
                    throw new DatasetFormatException(WHAT, file, path + " (line " + line + ")",
                            "a conversation must be a JSON object, not " + describe(token));
                }
                JsonNode conversation = parser.readValueAsTree();
                firstExchange(file, conversation, path, " (line " + line + ")", index).ifPresent(out::add);
            }
            JsonToken trailing = parser.nextToken();
            if (trailing != null) {
                throw new DatasetFormatException(WHAT, file, "line " + (parser.currentTokenLocation().getLineNr() + lineOffset),
                        "unexpected " + describe(trailing) + " after the array of conversations");
            }
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "$[" + index + "]"
                    : "$[" + index + "] (line " + (at.getLineNr() + lineOffset) + ", column " + at.getColumnNr() + ")";
            throw new DatasetFormatException(WHAT, file, where, "not valid JSON: " + JsonMessages.clean(e), e);
        }
        return index;
    }

    private static int readLines(Path file, InputStream in, int lineOffset, List<Exchange> out) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)));
        int conversations = 0;
        int lineNumber = lineOffset;
        try {
            for (String line; (line = reader.readLine()) != null; ) {
                lineNumber++;
                if (line.isBlank()) continue;
                JsonNode conversation;
                try {
                    conversation = MAPPER.readTree(line);
                } catch (JsonProcessingException e) {
                    throw new DatasetFormatException(WHAT, file, "line " + lineNumber,
                            "not valid JSON: " + JsonMessages.clean(e), e);
                }
                firstExchange(file, conversation, "line " + lineNumber, "", conversations).ifPresent(out::add);
                conversations++;
            }
        } catch (CharacterCodingException e) {
            throw new DatasetFormatException(WHAT, file, "line " + (lineNumber + 1), "not UTF-8 text", e);
        }
        return conversations;
    }

    /**
     * @param path   where the conversation is: {@code $[12]} or {@code line 13}
     * @param suffix appended to every location (the line of an array element)
     * @param index  the conversation's place in the file, 0-based
     */
    private static Optional<Exchange> firstExchange(Path file, JsonNode conversation, String path, String suffix,
                                                    int index) {
        boolean jsonLines = path.startsWith("line");
        String base = jsonLines ? "$" : path;
        if (!conversation.isObject()) throw error(file, path, base, suffix, "a conversation must be a JSON object");
        String arrayName = null;
        for (String name : TURN_ARRAYS) {
            if (conversation.has(name)) {
                arrayName = name;
                break;
            }
        }
        if (arrayName == null) {
            throw error(file, path, base, suffix, "the conversation has no " + String.join(", ", TURN_ARRAYS) + " array");
        }
        JsonNode turns = conversation.get(arrayName);
        String turnsPath = base + "." + arrayName;
        if (!turns.isArray()) throw error(file, path, turnsPath, suffix, "not an array");
        List<String> roles = new ArrayList<>(turns.size());
        List<String> texts = new ArrayList<>(turns.size());
        for (int i = 0; i < turns.size(); i++) {
            JsonNode turn = turns.get(i);
            String turnPath = turnsPath + "[" + i + "]";
            if (!turn.isObject()) throw error(file, path, turnPath, suffix, "a turn must be a JSON object");
            String roleField = turn.has("from") ? "from" : turn.has("role") ? "role" : null;
            String textField = turn.has("value") ? "value" : turn.has("content") ? "content" : null;
            if (roleField == null) throw error(file, path, turnPath, suffix, "the turn has no from or role");
            if (textField == null) throw error(file, path, turnPath, suffix, "the turn has no value or content");
            JsonNode role = turn.get(roleField);
            if (!role.isTextual()) throw error(file, path, turnPath + "." + roleField, suffix, "must be a string");
            roles.add(role.asText().toLowerCase(Locale.ROOT));
            texts.add(text(file, path, turn.get(textField), turnPath + "." + textField, suffix));
        }
        int user = -1;
        for (int i = 0; i < roles.size() && user < 0; i++) if (USER_ROLES.contains(roles.get(i))) user = i;
        if (user < 0 || user + 1 >= roles.size() || !ASSISTANT_ROLES.contains(roles.get(user + 1))) {
            return Optional.empty();
        }
        String prompt = texts.get(user);
        String reply = texts.get(user + 1);
        if (prompt.isEmpty() || reply.isBlank()) return Optional.empty();
        // the later user/assistant pairs, for multi-turn sessions: as long as the roles alternate
        List<String> later = new ArrayList<>();
        for (int i = user + 2; i + 1 < roles.size() && USER_ROLES.contains(roles.get(i))
                && ASSISTANT_ROLES.contains(roles.get(i + 1)) && !texts.get(i).isEmpty()
                && !texts.get(i + 1).isBlank(); i += 2) {
            later.add(texts.get(i));
            later.add(texts.get(i + 1));
        }
        // the system turns before the first question: the conversation's system prompt, sent with --turns all
        StringBuilder system = new StringBuilder();
        for (int i = 0; i < user; i++) {
            if (!roles.get(i).equals("system") || texts.get(i).isBlank()) continue;
            if (!system.isEmpty()) system.append("\n\n");
            system.append(texts.get(i));
        }
        JsonNode id = conversation.get("id");
        return Optional.of(new Exchange(prompt, reply, path, later, system.isEmpty() ? null : system.toString(),
                id != null && id.isTextual() && !id.asText().isBlank() ? id.asText() : null, index));
    }

    /** A string, null (no text), or an array of text parts. */
    private static String text(Path file, String path, JsonNode value, String valuePath, String suffix) {
        if (value.isTextual()) return value.asText();
        if (value.isNull()) return "";
        if (value.isArray()) {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < value.size(); i++) {
                JsonNode part = value.get(i);
                JsonNode partText = part.isObject() ? part.get("text") : null;
                if (partText != null && partText.isTextual()) {
                    text.append(partText.asText());
                } else if (!part.isObject() || !part.has("type")) {
                    throw error(file, path, valuePath + "[" + i + "]", suffix,
                            "a content part must be an object with a type (and text)");
                }
            }
            return text.toString();
        }
        throw error(file, path, valuePath, suffix, "must be a string, not " + value.getNodeType().name().toLowerCase(Locale.ROOT));
    }

    private static DatasetFormatException error(Path file, String path, String jsonPath, String suffix, String problem) {
        String location = path.startsWith("line") ? path + ", " + jsonPath : jsonPath + suffix;
        return new DatasetFormatException(WHAT, file, location, problem);
    }

    private static String describe(JsonToken token) {
        return switch (token) {
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> token.asString() == null ? token.name() : "'" + token.asString() + "'";
        };
    }
}
