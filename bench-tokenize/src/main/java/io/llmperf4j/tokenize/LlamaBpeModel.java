package io.llmperf4j.tokenize;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The BPE model of a SentencePiece-style HuggingFace {@code tokenizer.json} (Llama-2's: normalizer "prepend ▁,
 * replace ' ' by ▁", no pre-tokenizer, BPE with byte fallback, {@code <s>} added in front), run in Java exactly as
 * the Rust tokenizers library runs it: the word's symbols are its code points (a code point missing from the
 * vocabulary becomes its UTF-8 byte tokens), then the adjacent pair of lowest merge rank is merged, the leftmost
 * first, until no pair has a merge ({@link BpeWord}; a long word of a few runs of one piece, {@link RunMerge}).
 *
 * <p>{@link #of} accepts only that exact shape and returns empty for anything else. Thread-safe; its mutable parts
 * are a cache of word tokens and each thread's workspace for merging.
 */
final class LlamaBpeModel {
    static final char SPACE_MARK = '\u2581'; // "▁"
    private static final int NO_ID = -1;
    /**
     * Field names neither interned nor canonicalized: the vocabulary's 32k pieces are field names, and Jackson's
     * defaults would put each into the JVM's string table (native memory that does not shrink) for one parse.
     */
    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
            .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES)
            .build());

    /**
     * The pieces that are one supplementary character (two UTF-16 units), by code point in increasing order, and
     * their ids; the others are in {@link #charIds}. Searched by code point: a String key per character made 1 MB of
     * random Unicode allocate some 10 MB per call.
     */
    private final int[] supplementaryCodePoints;
    private final int[] supplementaryIds;
    /** Id of each single-UTF-16-unit piece, by the char; {@link #NO_ID} when the char is no piece. */
    private final int[] charIds = new int[Character.MAX_VALUE + 1];
    private final int[] byteIds;
    private final MergeTable merges;
    private final WordCuts cuts;
    private final int bosId;
    private final List<String> addedTokenTexts;
    /**
     * Tokens of words seen before, by the word's normalized text: a word's BPE depends on its characters only, and
     * the words of generated text repeat (like the Rust library's own word cache, it stops growing when full).
     */
    private static final int CACHED_WORDS = 16_384;
    private final WordCache wordCache = new WordCache(CACHED_WORDS);
    private static final int CACHED_WORD_CHARS = 48;
    /** What merging a word needs, one per thread: reused word after word (see {@link BpeWord}). */
    private final ThreadLocal<Workspace> workspaces;

    private record Workspace(BpeWord word, RunMerge runs) {
    }

    private LlamaBpeModel(Map<String, Integer> vocab, MergeTable merges, int[] byteIds, int bosId,
                          List<String> addedTokenTexts) {
        this.merges = merges;
        this.byteIds = byteIds;
        this.bosId = bosId;
        this.addedTokenTexts = addedTokenTexts;
        this.workspaces = ThreadLocal.withInitial(() -> new Workspace(new BpeWord(merges), new RunMerge(merges)));
        Arrays.fill(charIds, NO_ID);
        long[] supplementary = new long[16]; // (code point, id), sorted below
        int supplementaryCount = 0;
        for (Map.Entry<String, Integer> e : vocab.entrySet()) {
            String piece = e.getKey();
            if (piece.length() == 1) {
                charIds[piece.charAt(0)] = e.getValue();
            } else if (piece.length() == 2 && Character.isSurrogatePair(piece.charAt(0), piece.charAt(1))) {
                if (supplementaryCount == supplementary.length) {
                    supplementary = Arrays.copyOf(supplementary, 2 * supplementaryCount);
                }
                supplementary[supplementaryCount++] = (long) piece.codePointAt(0) << 32 | (e.getValue() & 0xFFFFFFFFL);
            }
        }
        Arrays.sort(supplementary, 0, supplementaryCount);
        supplementaryCodePoints = new int[supplementaryCount];
        supplementaryIds = new int[supplementaryCount];
        for (int i = 0; i < supplementaryCount; i++) {
            supplementaryCodePoints[i] = (int) (supplementary[i] >>> 32);
            supplementaryIds[i] = (int) supplementary[i];
        }
        String[] pieces = new String[vocab.values().stream().mapToInt(Integer::intValue).max().orElse(0) + 1];
        vocab.forEach((piece, id) -> pieces[id] = piece);
        cuts = new WordCuts(pieces, merges, byteIds);
    }

    /**
     * The model of the tokenizer.json {@code json} when it has exactly the Llama-2 shape described above; empty
     * otherwise (also when it is no valid JSON: the library then says why). Streams the vocabulary and the merges,
     * so loading leaves little garbage behind.
     */
    static Optional<LlamaBpeModel> of(byte[] json) {
        try (JsonParser p = JSON.createParser(json)) {
            return of(p);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Optional<LlamaBpeModel> of(JsonParser p) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) return Optional.empty();
        JsonNode normalizer = null;
        JsonNode preTokenizer = null;
        JsonNode postProcessor = null;
        JsonNode addedTokens = null;
        ObjectNode modelSettings = JSON.createObjectNode();
        Map<String, Integer> vocab = null;
        // merges resolved to ids as they stream in when the vocabulary came first (as in every file the library
        // writes): a few ints each, where 61k pairs of strings held until the end made the load's peak heap
        MergeIds merges = null;
        List<String[]> mergePairs = null; // a file with the merges before the vocabulary: resolved at the end
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "normalizer" -> normalizer = p.readValueAsTree();
                case "pre_tokenizer" -> preTokenizer = p.readValueAsTree();
                case "post_processor" -> postProcessor = p.readValueAsTree();
                case "added_tokens" -> addedTokens = p.readValueAsTree();
                case "model" -> {
                    if (p.currentToken() != JsonToken.START_OBJECT) return Optional.empty();
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String name = p.currentName();
                        JsonToken value = p.nextToken();
                        if (name.equals("vocab") && value == JsonToken.START_OBJECT) {
                            vocab = new HashMap<>(65_536);
                            while (p.nextToken() == JsonToken.FIELD_NAME) {
                                String piece = p.currentName();
                                if (p.nextToken() != JsonToken.VALUE_NUMBER_INT) return Optional.empty();
                                vocab.put(piece, p.getIntValue());
                            }
                        } else if (name.equals("merges") && value == JsonToken.START_ARRAY) {
                            merges = new MergeIds();
                            mergePairs = new ArrayList<>();
                            while (p.nextToken() != JsonToken.END_ARRAY) {
                                String[] pair = mergePair(p);
                                if (pair == null) return Optional.empty();
                                if (vocab == null) {
                                    mergePairs.add(pair);
                                } else if (!merges.add(vocab, pair)) {
                                    return Optional.empty();
                                }
                            }
                        } else {
                            modelSettings.set(name, p.readValueAsTree());
                        }
                    }
                }
                default -> p.skipChildren();
            }
        }
        if (normalizer == null || !isLlamaNormalizer(normalizer)) return Optional.empty();
        if (preTokenizer != null && !preTokenizer.isNull()) return Optional.empty();
        if (!"BPE".equals(modelSettings.path("type").asText()) || !modelSettings.path("byte_fallback").asBoolean(false)
                || !nullOrMissing(modelSettings, "dropout") || !nullOrMissing(modelSettings, "continuing_subword_prefix")
                || !nullOrMissing(modelSettings, "end_of_word_suffix")
                || modelSettings.path("ignore_merges").asBoolean(false) || vocab == null || merges == null) {
            return Optional.empty();
        }
        // added tokens are cut out of the text before normalizing; texts holding one go to the library
        List<String> added = new ArrayList<>();
        for (JsonNode token : addedTokens == null ? JSON.createArrayNode() : addedTokens) {
            if (token.path("normalized").asBoolean(true) || token.path("single_word").asBoolean(false)
                    || token.path("lstrip").asBoolean(false) || token.path("rstrip").asBoolean(false)) {
                return Optional.empty();
            }
            added.add(token.path("content").asText());
        }
        Integer bos = postProcessor == null ? null : bosOnlyTemplate(postProcessor, vocab);
        if (bos == null) return Optional.empty();
        for (String[] pair : mergePairs) {
            if (!merges.add(vocab, pair)) return Optional.empty();
        }
        int[] byteIds = new int[256];
        for (int b = 0; b < 256; b++) {
            Integer id = vocab.get(String.format("<0x%02X>", b));
            if (id == null) return Optional.empty(); // without every byte token, unknown characters would differ
            byteIds[b] = id;
        }
        return Optional.of(new LlamaBpeModel(vocab, merges.table(), byteIds, bos, List.copyOf(added)));
    }

    /** The merges in rank order, each as the ids (left, right, merged). */
    private static final class MergeIds {
        private int[] ids = new int[3 * 1024];
        private int size;

        /**
         * Appends the merge {@code pair} resolved with {@code vocab}; false when the file is no Llama-2 shape: a
         * piece missing from the vocabulary (the library refuses such files), or a merged piece with "▁" after
         * another character (it would join words, and cutting the text at each "▁" would be wrong).
         */
        boolean add(Map<String, Integer> vocab, String[] pair) {
            String joined = pair[0] + pair[1];
            Integer a = vocab.get(pair[0]);
            Integer b = vocab.get(pair[1]);
            Integer merged = vocab.get(joined);
            if (a == null || b == null || merged == null || joinsWords(joined)) return false;
            if (size + 3 > ids.length) ids = Arrays.copyOf(ids, ids.length * 2);
            ids[size++] = a;
            ids[size++] = b;
            ids[size++] = merged;
            return true;
        }

        MergeTable table() {
            return new MergeTable(Arrays.copyOf(ids, size));
        }
    }

    /** A merge written {@code "a b"} or {@code ["a", "b"]}; null for anything else. */
    private static String[] mergePair(JsonParser p) throws IOException {
        if (p.currentToken() == JsonToken.VALUE_STRING) {
            String pair = p.getText();
            int space = pair.indexOf(' ');
            if (space < 0 || pair.indexOf(' ', space + 1) >= 0) return null;
            return new String[] {pair.substring(0, space), pair.substring(space + 1)};
        }
        if (p.currentToken() != JsonToken.START_ARRAY) return null;
        String[] pair = new String[2];
        for (int i = 0; i < 2; i++) {
            if (p.nextToken() != JsonToken.VALUE_STRING) return null;
            pair[i] = p.getText();
        }
        return p.nextToken() == JsonToken.END_ARRAY ? pair : null;
    }

    private static boolean nullOrMissing(JsonNode node, String field) {
        return node.path(field).isNull() || node.path(field).isMissingNode();
    }

    private static boolean isLlamaNormalizer(JsonNode normalizer) {
        if (!"Sequence".equals(normalizer.path("type").asText())) return false;
        JsonNode steps = normalizer.path("normalizers");
        if (steps.size() != 2) return false;
        JsonNode prepend = steps.get(0);
        JsonNode replace = steps.get(1);
        return "Prepend".equals(prepend.path("type").asText())
                && String.valueOf(SPACE_MARK).equals(prepend.path("prepend").asText())
                && "Replace".equals(replace.path("type").asText())
                && " ".equals(replace.path("pattern").path("String").asText(null))
                && String.valueOf(SPACE_MARK).equals(replace.path("content").asText());
    }

    /** The BOS id when the post-processor adds exactly one special token in front of the text; null otherwise. */
    private static Integer bosOnlyTemplate(JsonNode post, Map<String, Integer> vocab) {
        if (!"TemplateProcessing".equals(post.path("type").asText())) return null;
        JsonNode single = post.path("single");
        if (single.size() != 2 || !single.get(0).has("SpecialToken") || !single.get(1).has("Sequence")) return null;
        String name = single.get(0).path("SpecialToken").path("id").asText();
        JsonNode ids = post.path("special_tokens").path(name).path("ids");
        if (ids.size() != 1) return null;
        int id = ids.get(0).asInt();
        return vocab.containsValue(id) ? id : null;
    }

    private static boolean joinsWords(String piece) {
        for (int i = 1; i < piece.length(); i++) {
            if (piece.charAt(i) == SPACE_MARK && piece.charAt(i - 1) != SPACE_MARK) return true;
        }
        return false;
    }

    int bosId() {
        return bosId;
    }

    /** Whether {@code text} holds an added token's text (the library would cut it out): leave it to the library. */
    boolean holdsAddedToken(String text) {
        for (String added : addedTokenTexts) {
            if (!added.isEmpty() && text.contains(added)) return true;
        }
        return false;
    }

    /**
     * Encodes one word of normalized text: the code points {@code normalized[from, to)}, given as UTF-16 units.
     * Appends each token's id and end (the index in {@code normalized} just past it; a byte token ends after its
     * whole character) to {@code out}.
     */
    void encodeWord(char[] normalized, int from, int to, TokenSink out) {
        if (to - from <= CACHED_WORD_CHARS) {
            encodeCached(normalized, from, to, out);
            return;
        }
        if (to - from >= BpeWord.SWEEP_MIN_SYMBOLS && encodedInRuns(normalized, from, to, out)) return;
        // a long word of no few runs: its parts between places no merge can join ({@link WordCuts}), one by one,
        // not through the word cache (never emptied, it would fill up with the pieces of one random answer)
        BpeWord word = workspaces.get().word();
        int part = from;
        for (int i = from + 1; i < to; i++) {
            if (cuts.between(normalized[i - 1], normalized[i], charIds)) {
                encodePart(word, normalized, part, i, out);
                part = i;
            }
        }
        if (part == from) {
            mergeSymbols(word, normalized, from, to, out);
        } else {
            encodePart(word, normalized, part, to, out);
        }
    }

    /**
     * One part of a long word: most parts of random text are a character or two, each a piece, whose BPE is the piece
     * or the pair's merge; the others go through {@code word}.
     */
    private void encodePart(BpeWord word, char[] normalized, int from, int to, TokenSink out) {
        int length = to - from;
        if (length <= 2) {
            char a = normalized[from];
            int first = Character.isSurrogate(a) ? NO_ID : charIds[a];
            if (length == 1 && first != NO_ID) {
                out.token(first, to);
                return;
            }
            char b = normalized[to - 1];
            int second = Character.isSurrogate(b) ? NO_ID : charIds[b];
            if (length == 2 && first != NO_ID && second != NO_ID) {
                long merge = merges.get(first, second);
                if (merge != MergeTable.NONE) {
                    out.token(MergeTable.mergedId(merge), to);
                } else {
                    out.token(first, from + 1);
                    out.token(second, to);
                }
                return;
            }
        }
        if (length >= BpeWord.SWEEP_MIN_SYMBOLS && encodedInRuns(normalized, from, to, out)) return;
        mergeSymbols(word, normalized, from, to, out);
    }

    /** Whether {@link #encodeWord} cuts a long word between {@code a} and {@code b} ({@link WordCuts}). */
    boolean cutBetween(char a, char b) {
        return cuts.between(a, b, charIds);
    }

    /** A short word, from the word cache or merged and put there. */
    private void encodeCached(char[] normalized, int from, int to, TokenSink out) {
        int[] cached = wordCache.get(normalized, from, to);
        if (cached == null) {
            WordTokens tokens = new WordTokens(from);
            encodeUncached(normalized, from, to, tokens);
            cached = tokens.packed();
            wordCache.put(normalized, from, to, cached); // full: stays as it is
        }
        for (int i = 0; i < cached.length; i += 2) out.token(cached[i], from + cached[i + 1]);
    }

    /** The BPE of one word from its code points (what {@link #encodeWord} caches). */
    private void encodeUncached(char[] normalized, int from, int to, TokenSink out) {
        if (to - from >= BpeWord.SWEEP_MIN_SYMBOLS && encodedInRuns(normalized, from, to, out)) return;
        mergeSymbols(workspaces.get().word(), normalized, from, to, out);
    }

    /** The BPE of one word, symbol by symbol, in this thread's {@code word}. */
    private void mergeSymbols(BpeWord word, char[] normalized, int from, int to, TokenSink out) {
        word.start(to - from);
        for (int i = from; i < to; ) {
            char c = normalized[i];
            int end = i + 1;
            int id;
            if (Character.isHighSurrogate(c) && end < to && Character.isLowSurrogate(normalized[end])) {
                end++;
                int at = Arrays.binarySearch(supplementaryCodePoints, Character.toCodePoint(c, normalized[i + 1]));
                id = at < 0 ? NO_ID : supplementaryIds[at];
            } else {
                id = charIds[c];
            }
            if (id != NO_ID) {
                word.add(id, end);
            } else {
                addUtf8Bytes(word, end - i == 2 ? Character.toCodePoint(c, normalized[i + 1]) : c, end);
            }
            i = end;
        }
        word.mergeAll();
        word.emit(out);
    }

    /**
     * Encodes the word as {@link RunMerge} does (a few runs of one piece), when it can: false, having given nothing to
     * {@code out}, otherwise.
     */
    boolean encodedInRuns(char[] normalized, int from, int to, TokenSink out) {
        return workspaces.get().runs().merge(normalized, from, to, charIds, out);
    }

    /** The byte tokens of {@code codePoint}'s UTF-8 form (no String per character: random text is mostly these). */
    private void addUtf8Bytes(BpeWord word, int codePoint, int end) {
        if (codePoint < 0x80) {
            word.add(byteIds[codePoint], end);
        } else if (codePoint < 0x800) {
            word.add(byteIds[0xC0 | codePoint >> 6], end);
            word.add(byteIds[0x80 | codePoint & 0x3F], end);
        } else if (codePoint < 0x10000) {
            word.add(byteIds[0xE0 | codePoint >> 12], end);
            word.add(byteIds[0x80 | codePoint >> 6 & 0x3F], end);
            word.add(byteIds[0x80 | codePoint & 0x3F], end);
        } else {
            word.add(byteIds[0xF0 | codePoint >> 18], end);
            word.add(byteIds[0x80 | codePoint >> 12 & 0x3F], end);
            word.add(byteIds[0x80 | codePoint >> 6 & 0x3F], end);
            word.add(byteIds[0x80 | codePoint & 0x3F], end);
        }
    }

    /** Receives tokens in order. */
    interface TokenSink {
        void token(int id, int end);
    }

    /** One word's tokens as pairs (id, end relative to the word's start), the cache's values. */
    private static final class WordTokens implements TokenSink {
        private final int from;
        private int[] packed = new int[8];
        private int size;

        WordTokens(int from) {
            this.from = from;
        }

        @Override
        public void token(int id, int end) {
            if (size + 2 > packed.length) packed = Arrays.copyOf(packed, packed.length * 2);
            packed[size++] = id;
            packed[size++] = end - from;
        }

        int[] packed() {
            return Arrays.copyOf(packed, size);
        }
    }
}
