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
 * first, until no pair has a merge.
 *
 * <p>{@link #of} accepts only that exact shape and returns empty for anything else. Thread-safe; its only mutable
 * part is a cache of word tokens.
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

    /** Ids of the pieces that are one supplementary character (two UTF-16 units); the others are in {@link #charIds}. */
    private final Map<String, Integer> supplementaryIds = new HashMap<>();
    /** Id of each single-UTF-16-unit piece, by the char; {@link #NO_ID} when the char is no piece. */
    private final int[] charIds = new int[Character.MAX_VALUE + 1];
    private final int[] byteIds = new int[256];
    private final MergeTable merges;
    private final int bosId;
    private final List<String> addedTokenTexts;
    /**
     * Tokens of words seen before, by the word's normalized text: a word's BPE depends on its characters only, and
     * the words of generated text repeat (like the Rust library's own word cache, it stops growing when full).
     */
    private static final int CACHED_WORDS = 16_384;
    private final WordCache wordCache = new WordCache(CACHED_WORDS);
    private static final int CACHED_WORD_CHARS = 48;

    private LlamaBpeModel(Map<String, Integer> vocab, MergeTable merges, int bosId, List<String> addedTokenTexts) {
        this.merges = merges;
        this.bosId = bosId;
        this.addedTokenTexts = addedTokenTexts;
        Arrays.fill(charIds, NO_ID);
        for (Map.Entry<String, Integer> e : vocab.entrySet()) {
            String piece = e.getKey();
            if (piece.length() == 1) {
                charIds[piece.charAt(0)] = e.getValue();
            } else if (piece.length() == 2 && Character.isSurrogatePair(piece.charAt(0), piece.charAt(1))) {
                supplementaryIds.put(piece, e.getValue());
            }
        }
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
        LlamaBpeModel result = new LlamaBpeModel(vocab, merges.table(), bos, List.copyOf(added));
        for (int b = 0; b < 256; b++) {
            Integer id = vocab.get(String.format("<0x%02X>", b));
            if (id == null) return Optional.empty(); // without every byte token, unknown characters would differ
            result.byteIds[b] = id;
        }
        return Optional.of(result);
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
            MergeTable table = new MergeTable(size / 3);
            // a repeated pair keeps its last rank, as in the library's map
            for (int i = 0; i < size; i += 3) table.put(ids[i], ids[i + 1], i / 3, ids[i + 2]);
            return table;
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
        if (to - from > CACHED_WORD_CHARS) {
            encodeUncached(normalized, from, to, out);
            return;
        }
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
        Word word = new Word(to - from);
        for (int i = from; i < to; ) {
            char c = normalized[i];
            int end = i + 1;
            int id;
            if (Character.isHighSurrogate(c) && end < to && Character.isLowSurrogate(normalized[end])) {
                end++;
                Integer boxed = supplementaryIds.get(new String(normalized, i, 2));
                id = boxed == null ? NO_ID : boxed;
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
        word.mergeAll(merges);
        word.emit(out);
    }

    /** The byte tokens of {@code codePoint}'s UTF-8 form (no String per character: random text is mostly these). */
    private void addUtf8Bytes(Word word, int codePoint, int end) {
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

    /** A word's symbols as a linked list over arrays, merged in place (the library's {@code Word::merge_all}). */
    private static final class Word {
        /** From this many symbols on, {@link RankSweep} merges the word; below, the heap is as fast. */
        static final int SWEEP_MIN_SYMBOLS = 256;
        private int[] ids;
        private int[] ends;
        private int[] prev;
        private int[] next;
        private int size;

        Word(int capacity) {
            int n = Math.max(4, capacity);
            ids = new int[n];
            ends = new int[n];
            prev = new int[n];
            next = new int[n];
        }

        void add(int id, int end) {
            if (size == ids.length) {
                int n = size * 2;
                ids = Arrays.copyOf(ids, n);
                ends = Arrays.copyOf(ends, n);
                prev = Arrays.copyOf(prev, n);
                next = Arrays.copyOf(next, n);
            }
            ids[size] = id;
            ends[size] = end;
            prev[size] = size - 1;
            next[size] = -1;
            if (size > 0) next[size - 1] = size;
            size++;
        }

        /**
         * Repeatedly merges the pair of lowest rank, the leftmost of equal ranks. Queue entries are (rank, position
         * of the left symbol); an entry whose pair has changed since it was queued is skipped, as in the library
         * (such an entry never becomes valid again: the pieces at a position only grow). Long words go through
         * {@link RankSweep}, which takes the same merges in the same order without the heap.
         */
        void mergeAll(MergeTable merges) {
            LongHeap queue;
            if (size >= SWEEP_MIN_SYMBOLS) {
                queue = new RankSweep(merges).run();
                if (queue == null) return;
            } else {
                queue = new LongHeap(size);
                for (int i = 0; i + 1 < size; i++) {
                    long merge = merges.get(ids[i], ids[i + 1]);
                    if (merge != MergeTable.NONE) queue.push(MergeTable.rank(merge), i);
                }
            }
            while (!queue.isEmpty()) {
                long top = queue.pop();
                int rank = (int) (top >>> 32);
                int pos = (int) top;
                int mergedId = mergedIdIfCurrent(merges, pos, rank);
                if (mergedId == NO_ID) continue;
                merge(pos, mergedId);
                int left = prev[pos];
                if (left >= 0) {
                    long m = merges.get(ids[left], ids[pos]);
                    if (m != MergeTable.NONE) queue.push(MergeTable.rank(m), left);
                }
                int after = next[pos];
                if (after >= 0) {
                    long m = merges.get(ids[pos], ids[after]);
                    if (m != MergeTable.NONE) queue.push(MergeTable.rank(m), pos);
                }
            }
        }

        /** The merged id when the pair at {@code pos} is still the one of {@code rank}; {@link #NO_ID} when stale. */
        private int mergedIdIfCurrent(MergeTable merges, int pos, int rank) {
            int right = next[pos];
            if (ids[pos] == NO_ID || right < 0) return NO_ID; // merged away, or the last symbol
            long merge = merges.get(ids[pos], ids[right]);
            if (merge == MergeTable.NONE || MergeTable.rank(merge) != rank) return NO_ID;
            return MergeTable.mergedId(merge);
        }

        /** Joins the symbol at {@code pos} and the one after it into {@code mergedId}. */
        private void merge(int pos, int mergedId) {
            int right = next[pos];
            ids[pos] = mergedId;
            ends[pos] = ends[right];
            ids[right] = NO_ID;
            next[pos] = next[right];
            if (next[right] >= 0) prev[next[right]] = pos;
        }

        /**
         * The heap's order without a heap over every pair, for long words: a degenerate answer (a model repeating one
         * character) is one word of up to megabytes, and the heap's pops over that many pairs made 1 MB of "x" take
         * 0.37 s, 54 times as long as 1 MB of spaced words (most of those come from the word cache). A merge of rank r
         * creates pairs of other ranks only (the merged piece is longer than either part), and when those ranks are
         * all higher, as for nearly every merge of a trained table (a piece exists before pieces made of it), the
         * heap pops every pending entry of rank r, left to right, before any of a higher rank. So the pending
         * positions are kept in one list per rank, and the ranks are taken in increasing order, each list in
         * position order. A merge that creates a pair of no higher rank than the one being swept hands every pending
         * entry to the heap, which goes on exactly as if it had run from the start.
         */
        private final class RankSweep {
            private final MergeTable merges;
            /** Ranks with pending positions, as (rank, 0) entries. */
            private final LongHeap ranks = new LongHeap(16);
            private final PositionLists lists = new PositionLists();

            RankSweep(MergeTable merges) {
                this.merges = merges;
            }

            /** Merges the whole word; or, when a merge needs the heap after all, that heap with what is pending. */
            LongHeap run() {
                for (int i = 0; i + 1 < size; i++) {
                    long merge = merges.get(ids[i], ids[i + 1]);
                    if (merge != MergeTable.NONE) add(MergeTable.rank(merge), i);
                }
                while (!ranks.isEmpty()) {
                    int rank = (int) (ranks.pop() >>> 32);
                    Positions list = lists.remove(rank);
                    lastAdded = null; // ranks taken are never added to again (a lower rank hands over instead)
                    list.sort();
                    for (int j = 0; j < list.size; j++) {
                        int pos = list.positions[j];
                        int mergedId = mergedIdIfCurrent(merges, pos, rank);
                        if (mergedId == NO_ID) continue;
                        merge(pos, mergedId);
                        int left = prev[pos];
                        long leftMerge = left < 0 ? MergeTable.NONE : merges.get(ids[left], ids[pos]);
                        long rightMerge = next[pos] < 0 ? MergeTable.NONE : merges.get(ids[pos], ids[next[pos]]);
                        // not higher (equal only with an empty piece in the table): the heap's turn
                        if ((leftMerge != MergeTable.NONE && MergeTable.rank(leftMerge) <= rank)
                                || (rightMerge != MergeTable.NONE && MergeTable.rank(rightMerge) <= rank)) {
                            LongHeap queue = pending(list, j + 1);
                            if (leftMerge != MergeTable.NONE) queue.push(MergeTable.rank(leftMerge), left);
                            if (rightMerge != MergeTable.NONE) queue.push(MergeTable.rank(rightMerge), pos);
                            return queue;
                        }
                        if (leftMerge != MergeTable.NONE) add(MergeTable.rank(leftMerge), left);
                        if (rightMerge != MergeTable.NONE) add(MergeTable.rank(rightMerge), pos);
                    }
                }
                return null;
            }

            /** The list {@link #add} used last: runs of one pair (a repeated character) add to the same rank. */
            private Positions lastAdded;

            private void add(int rank, int pos) {
                Positions list = lastAdded != null && lastAdded.rank == rank ? lastAdded : lists.get(rank);
                if (list == null) {
                    list = lists.create(rank);
                    ranks.push(rank, 0);
                }
                list.add(pos);
                lastAdded = list;
            }

            /** Every entry not yet taken: the rest of the list being swept and the lists of the ranks to come. */
            private LongHeap pending(Positions current, int from) {
                LongHeap queue = new LongHeap(size);
                for (int j = from; j < current.size; j++) queue.push(current.rank, current.positions[j]);
                lists.forEach(list -> {
                    for (int j = 0; j < list.size; j++) queue.push(list.rank, list.positions[j]);
                });
                return queue;
            }
        }

        void emit(TokenSink out) {
            for (int i = size == 0 ? -1 : 0; i >= 0; i = next[i]) out.token(ids[i], ends[i]);
        }
    }

    /** The positions queued for one rank, in the order they came; {@link #sort} puts them in position order. */
    private static final class Positions {
        final int rank;
        int[] positions = new int[8];
        int size;
        private boolean ascending = true;

        Positions(int rank) {
            this.rank = rank;
        }

        void add(int pos) {
            if (size == positions.length) positions = Arrays.copyOf(positions, size * 2);
            if (size > 0 && positions[size - 1] > pos) ascending = false;
            positions[size++] = pos;
        }

        void sort() {
            if (!ascending) Arrays.sort(positions, 0, size);
            ascending = true;
        }
    }

    /** {@link Positions} by rank: open addressing over the few ranks one word holds. */
    private static final class PositionLists {
        private Positions[] table = new Positions[16];
        private int size;

        Positions get(int rank) {
            int mask = table.length - 1;
            for (int i = slot(rank, mask); ; i = (i + 1) & mask) {
                Positions p = table[i];
                if (p == null || p.rank == rank) return p;
            }
        }

        Positions create(int rank) {
            if (2 * (size + 1) > table.length) grow();
            Positions created = new Positions(rank);
            insert(table, created);
            size++;
            return created;
        }

        /** Takes the list of {@code rank} out (it must be there); the table is rebuilt around the gap. */
        Positions remove(int rank) {
            int mask = table.length - 1;
            int i = slot(rank, mask);
            while (table[i].rank != rank) i = (i + 1) & mask;
            Positions removed = table[i];
            table[i] = null;
            size--;
            // re-insert the entries after the gap up to the next empty slot (linear probing's deletion)
            for (int j = (i + 1) & mask; table[j] != null; j = (j + 1) & mask) {
                Positions moved = table[j];
                table[j] = null;
                insert(table, moved);
            }
            return removed;
        }

        void forEach(java.util.function.Consumer<Positions> action) {
            for (Positions p : table) {
                if (p != null) action.accept(p);
            }
        }

        private void grow() {
            Positions[] bigger = new Positions[table.length * 2];
            for (Positions p : table) {
                if (p != null) insert(bigger, p);
            }
            table = bigger;
        }

        private static void insert(Positions[] into, Positions p) {
            int mask = into.length - 1;
            int i = slot(p.rank, mask);
            while (into[i] != null) i = (i + 1) & mask;
            into[i] = p;
        }

        private static int slot(int rank, int mask) {
            return Integer.rotateLeft(rank * 0x9E3779B9, 16) & mask;
        }
    }

    /** A min-heap of (rank, position) packed in longs, so the order is rank first, then position. */
    private static final class LongHeap {
        private long[] heap;
        private int size;

        LongHeap(int capacity) {
            heap = new long[Math.max(4, capacity)];
        }

        boolean isEmpty() {
            return size == 0;
        }

        void push(int rank, int pos) {
            if (size == heap.length) heap = Arrays.copyOf(heap, size * 2);
            long value = ((long) rank << 32) | pos;
            int i = size++;
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (heap[parent] <= value) break;
                heap[i] = heap[parent];
                i = parent;
            }
            heap[i] = value;
        }

        long pop() {
            long top = heap[0];
            long last = heap[--size];
            int i = 0;
            while (true) {
                int child = 2 * i + 1;
                if (child >= size) break;
                if (child + 1 < size && heap[child + 1] < heap[child]) child++;
                if (heap[child] >= last) break;
                heap[i] = heap[child];
                i = child;
            }
            if (size > 0) heap[i] = last;
            return top;
        }
    }

    /** Pair of ids to (rank, merged id), open addressing over primitive arrays. */
    private static final class MergeTable {
        static final long NONE = -1L;
        private final long[] keys;
        private final long[] values;
        private final int mask;

        MergeTable(int expected) {
            int capacity = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
            keys = new long[capacity];
            values = new long[capacity];
            Arrays.fill(keys, NONE);
            mask = capacity - 1;
        }

        static int rank(long value) {
            return (int) (value >>> 32);
        }

        static int mergedId(long value) {
            return (int) value;
        }

        private static long key(int a, int b) {
            return ((long) a << 32) | (b & 0xFFFFFFFFL);
        }

        private int slot(long key) {
            long h = key * 0x9E3779B97F4A7C15L;
            return (int) (h >>> 32) & mask;
        }

        void put(int a, int b, int rank, int mergedId) {
            long key = key(a, b);
            int i = slot(key);
            while (keys[i] != NONE && keys[i] != key) i = (i + 1) & mask;
            keys[i] = key;
            values[i] = ((long) rank << 32) | (mergedId & 0xFFFFFFFFL);
        }

        long get(int a, int b) {
            long key = key(a, b);
            for (int i = slot(key); ; i = (i + 1) & mask) {
                long k = keys[i];
                if (k == key) return values[i];
                if (k == NONE) return NONE;
            }
        }
    }
}
