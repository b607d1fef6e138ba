package io.llmperf4j.tokenize;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.llmperf4j.model.ClientTokenCount;
import io.llmperf4j.model.TokenCounter;
import io.llmperf4j.tokenize.llama.BuiltInLlama2;
import java.io.InputStream;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Java BPE against the Rust library it replaces, on the same tokenizer.json: ids and offsets must be equal. */
class LlamaBpeTokenizerTest {
    private static byte[] json;
    private static DjlTokenizer library;
    private static LlamaBpeTokenizer inJava;
    private static final AtomicInteger LIBRARY_CALLS = new AtomicInteger();

    @BeforeAll
    static void load() throws Exception {
        assumeTrue(Tokenizers.builtInLlama2Available(), "built-in Llama-2 tokenizer not derived in this build (no npm)");
        try (InputStream in = LlamaBpeTokenizerTest.class.getClassLoader().getResourceAsStream(BuiltInLlama2.RESOURCE)) {
            json = in.readAllBytes();
        }
        library = DjlTokenizer.load(TokenizerCache.extract(json), "library");
        LlamaBpeModel model = LlamaBpeModel.of(json).orElseThrow();
        inJava = new LlamaBpeTokenizer(model, () -> {
            LIBRARY_CALLS.incrementAndGet();
            return library;
        }, "java");
    }

    private static void assertSame(String text) {
        TokenizedText expected = library.encodeWithOffsets(text);
        TokenizedText actual = inJava.encodeWithOffsets(text);
        String shown = text.length() > 80 ? text.substring(0, 80) + "..." : text;
        assertArrayEquals(expected.ids(), actual.ids(), () -> "ids of [" + shown + "]");
        assertArrayEquals(expected.endCharIndex(), actual.endCharIndex(), () -> "ends of [" + shown + "]");
        assertArrayEquals(expected.endCharIndex(), inJava.tokenEnds(text), () -> "tokenEnds of [" + shown + "]");
        assertArrayEquals(library.encode(text), inJava.encode(text));
        assertEquals(library.count(text), inJava.count(text));
        assertEquals(library.countWithoutSpecialTokens(text), inJava.countWithoutSpecialTokens(text));
        // counted per event as it is tokenized: the library's ends counted per event, events splitting words,
        // surrogate pairs, and empty ones
        int[] events = events(text.length());
        TokenCounter.EventTokens perEvent = inJava.tokensPerEvent(text, events);
        assertEquals(expected.count(), perEvent.total(), () -> "total of [" + shown + "]");
        assertArrayEquals(ClientTokenCount.perEvent(expected.endCharIndex(), events), perEvent.perEvent(),
                () -> "per event of [" + shown + "]");
    }

    /** Event sizes adding up to {@code length}, cycling through empty, one-character and longer events. */
    private static int[] events(int length) {
        int[] pattern = {1, 0, 3, 2, 7, 1, 0, 16, 5, 1, 1, 40};
        int[] sizes = new int[2 * length + 2];
        int count = 0;
        for (int left = length, k = length % pattern.length; left > 0 || count == 0; k++) {
            int size = Math.min(left, pattern[k % pattern.length]);
            sizes[count++] = size;
            left -= size;
        }
        return java.util.Arrays.copyOf(sizes, count);
    }

    @Test
    void theBuiltInTokenizerRunsInJava() {
        assertInstanceOf(LlamaBpeTokenizer.class, Tokenizers.builtInLlama2());
    }

    @Test
    void matchesTheLibraryOnEdgeCases() {
        int before = LIBRARY_CALLS.get();
        for (String text : List.of("", " ", "  ", "   x", "x ", "x  ", "1984", " 1984", "a 1", "a  b", "\n", "x\ny",
                "\t tab", "😀", " 😀", "a🦙b c", "é", "naïve café", "镇江 and 東京", "▁", "▁▁a ▁b", "a▁", "<0x0A>", "<unk",
                "s>", "Hello world", " grabbed", "The quick brown fox jumps over the lazy dog.", "don't stop", "a.b,c;d",
                "ﬁ ligature", "\r\n", "x\u00A0y", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "👍🏽 skin tone", "👨‍👩‍👧 family")) {
            assertSame(text);
        }
        assertEquals(before, LIBRARY_CALLS.get(), "none of these needs the library");
    }

    @Test
    void textsWithAddedTokensOrBrokenUtf16AreLeftToTheLibrary() {
        int before = LIBRARY_CALLS.get();
        for (String text : List.of("<s>hi", "a </s> b", "<unk>", "x\u0000y", "lone \uD83E high", "lone \uDD99 low")) {
            assertSame(text);
        }
        assertTrue(LIBRARY_CALLS.get() > before);
    }

    @Test
    void matchesTheLibraryOnTheGroundTruthCases() throws Exception {
        JsonNode cases;
        try (InputStream in = getClass().getResourceAsStream("llama/llama-tokenizer-js-1.2.2-cases.json")) {
            cases = new ObjectMapper().readTree(in);
        }
        for (JsonNode testCase : cases) assertSame(testCase.get("text").asText());
    }

    /**
     * Characters outside the BMP (two UTF-16 units each): the three the vocabulary holds as pieces ({@code 𝕜},
     * {@code 🌍}, {@code 𝓝}, found by code point) and their neighbours, which it does not (byte fallback), alone, in
     * words, repeated into long words (the sweep), and beside BMP characters.
     */
    @Test
    void astralPlaneCharactersMatchTheLibrary() {
        int before = LIBRARY_CALLS.get();
        String[] astral = {"𝕜", "🌍", "𝓝", "𝕛", "𝕝", "🌎", "𝓜", "𝓞", "😀", "🦙", "𠀀", "𪚥", "\uD800\uDC00",
            "\uDBFF\uDFFF"};
        String[] others = {" ", "a", "镇", "▁"};
        for (String a : astral) {
            assertSame(a);
            assertSame(" " + a + " ");
            assertSame("x" + a + "y " + a + a + "z");
            assertSame(a.repeat(300));
            assertSame("hello " + a.repeat(129) + "é" + a.repeat(2));
        }
        Random random = new Random(20261208);
        for (int n = 0; n < 300; n++) {
            StringBuilder text = new StringBuilder();
            int parts = 1 + random.nextInt(n % 10 == 0 ? 600 : 30);
            for (int p = 0; p < parts; p++) {
                int pick = random.nextInt(astral.length + others.length);
                text.append(pick < astral.length ? astral[pick] : others[pick - astral.length]);
            }
            assertSame(text.toString());
        }
        assertEquals(before, LIBRARY_CALLS.get(), "none of these needs the library");
    }

    /**
     * Long words (over the word cache's 48 characters) are cut where no merge can join two characters
     * ({@link WordCuts}) and their parts encoded one by one: random words of letters, digits, punctuation, byte
     * fallback, CJK, astral characters and {@code ▁}, from 49 to 5,000 characters, match the library.
     */
    @Test
    void longWordsCutWhereNoMergeJoinsMatchTheLibrary() {
        int before = LIBRARY_CALLS.get();
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_.,:;!?'\"()[]{}<>#@&%$*~`|\\^"
                + "\n\t▁éüßñЖдשا镇江東京の\uE000\uE001\u0378\uFFFD";
        String[] astral = {"😀", "🦙", "𝕜", "🌍", "𝓝", "𝔘", "𠀀"};
        Random random = new Random(20261209);
        for (int n = 0; n < 400; n++) {
            int length = 49 + random.nextInt(n % 20 == 0 ? 5000 : 300);
            int kinds = 2 + random.nextInt(alphabet.length() - 2); // a few characters or many
            StringBuilder text = new StringBuilder(random.nextBoolean() ? "" : "the ");
            while (text.length() < length) {
                if (random.nextInt(30) == 0) {
                    text.append(astral[random.nextInt(astral.length)]);
                } else {
                    text.append(alphabet.charAt(random.nextInt(kinds)));
                }
            }
            assertSame(text.toString());
        }
        assertEquals(before, LIBRARY_CALLS.get(), "none of these needs the library");
    }

    /** Where the built-in vocabulary cuts: between base64 characters no piece holds together, never inside "xx". */
    @Test
    void cutsAreWhereNoPieceHoldsThePair() throws Exception {
        LlamaBpeModel model = LlamaBpeModel.of(json).orElseThrow();
        java.util.Map<String, Integer> vocab = new java.util.HashMap<>();
        new ObjectMapper().readTree(json).get("model").get("vocab").fields()
                .forEachRemaining(e -> vocab.put(e.getKey(), e.getValue().asInt()));
        java.util.Set<String> pairsInPieces = new java.util.HashSet<>();
        for (String piece : vocab.keySet()) {
            if (piece.matches("<0x[0-9A-F]{2}>|<s>|</s>|<unk>")) continue; // byte and special tokens are no text
            for (int i = 1; i < piece.length(); i++) pairsInPieces.add(piece.substring(i - 1, i + 1));
        }
        String base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        int cuts = 0;
        for (char a : base64.toCharArray()) {
            for (char b : base64.toCharArray()) {
                boolean cut = model.cutBetween(a, b);
                String pair = "" + a + b;
                boolean inAPiece = pairsInPieces.contains(pair);
                if (cut) {
                    cuts++;
                    assertTrue(!inAPiece, "a cut inside a piece: " + pair);
                }
            }
        }
        assertEquals(2764, cuts, "pairs of base64 characters no merged piece holds");
        assertTrue(!model.cutBetween('x', 'x') && !model.cutBetween('\u2581', 't'), "pairs inside pieces");
        assertTrue(model.cutBetween('a', '\uE000') && model.cutBetween('\uE000', '\uE001'),
                "a character without a piece: its bytes join nothing");
        assertTrue(!model.cutBetween('a', '\uD83D') && !model.cutBetween('\uDE00', 'a'), "never at a surrogate");
    }

    /** Random texts over an alphabet of the cases that matter: spaces, digits, byte fallback, surrogates, ▁. */
    @Test
    void matchesTheLibraryOnRandomTexts() {
        String[] atoms = {" ", " ", " ", "  ", "\n", "\t", "the", " of", "and", "ing", "tion", "un", "re", "s", "e",
                "a", "I", "'", ".", ",", "!", "?", "-", "(", ")", "\"", "0", "1", "7", "42", "3.14", "é", "ü", "ß", "ñ",
                "镇", "江", "東", "京", "の", "😀", "🦙", "𝔘", "ﬁ", "▁", "<", ">", "0x", "Ж", "д", "ש", "ا", "\u00A0",
                "\u200B", "ǅ", "İ", "ſ", "Ω", "™", "…", "—", "\r", "{", "}", "#", "@", "http://", "www", ".com"};
        Random random = new Random(20261203);
        for (int n = 0; n < 3000; n++) {
            StringBuilder text = new StringBuilder();
            int parts = 1 + random.nextInt(n % 10 == 0 ? 400 : 40);
            for (int p = 0; p < parts; p++) text.append(atoms[random.nextInt(atoms.length)]);
            assertSame(text.toString());
        }
    }

    /** Words met again, at other places and in other texts, come from the word cache: the same ids and ends. */
    @Test
    void repeatedWordsMatchTheLibraryWherever() {
        for (int round = 0; round < 2; round++) {
            assertSame(" word word  word\nword");
            assertSame("word");
            assertSame("naïve naïve 😀 😀😀 naïve");
            assertSame("x" + " word".repeat(300));
            assertSame("a" + "b".repeat(60) + " " + "b".repeat(60)); // longer than the cached words
        }
    }

    /** Long generated-looking texts, as the runners count: 1,024 words and more. */
    @Test
    void matchesTheLibraryOnLongTexts() {
        String[] words = "the way told how a house of light and river stone to in was he time".split(" ");
        Random random = new Random(7);
        for (int n = 0; n < 20; n++) {
            StringBuilder text = new StringBuilder();
            for (int w = 0; w < 1024 + n * 100; w++) {
                text.append(w == 0 && n % 2 == 0 ? "" : " ").append(words[random.nextInt(words.length)]);
                if (random.nextInt(40) == 0) text.append(random.nextBoolean() ? ".\n\n" : ", 2,718");
            }
            assertSame(text.toString());
        }
        assertSame("x".repeat(5000));
        assertSame("ab".repeat(3000) + " " + "🦙".repeat(500));
    }

    /**
     * Degenerate answers: one long word (no space) of one repeated character, of two alternating ones, of random
     * base64, random Latin-1 bytes or random Unicode (byte fallback, surrogate pairs). Words of 256 symbols and more
     * are merged rank by rank instead of through the heap; both sides of that size are here, up to 64 KB.
     */
    @Test
    void degenerateAnswersMatchTheLibrary() {
        int before = LIBRARY_CALLS.get();
        for (int n : new int[] {254, 255, 256, 257, 1000, 4097, 65_536}) {
            assertSame("x".repeat(n));
            assertSame(" " + "x".repeat(n) + " x");
        }
        Random random = new Random(20261206);
        for (int n : new int[] {300, 4096, 65_536}) {
            assertSame("xy".repeat(n / 2));
            assertSame("abc".repeat(n / 3));
            assertSame(randomText(random, n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"));
        }
        for (String unit : List.of("a", "e", "1", "0", "=", "-", ".", "!", "*", "\n", "\t", "▁", "é", "镇", "😀", "🦙")) {
            assertSame(unit.repeat(3000));
            assertSame("the " + unit.repeat(700) + "x".repeat(300) + " end");
        }
        for (int n : new int[] {1000, 16_384}) {
            StringBuilder latin1 = new StringBuilder();
            StringBuilder unicode = new StringBuilder();
            while (latin1.length() < n) {
                char c = (char) (1 + random.nextInt(255));
                latin1.append(c == ' ' ? 'z' : c);
            }
            while (unicode.length() < n) {
                int cp = random.nextInt(4) == 0 ? 0x10000 + random.nextInt(0x20000) : 0x21 + random.nextInt(0xFFDF);
                if (Character.isDefined(cp) && !Character.isWhitespace(cp) && !Character.isSurrogate((char) cp)
                        && cp != ' ') {
                    unicode.appendCodePoint(cp);
                }
            }
            assertSame(latin1.toString());
            assertSame(unicode.toString());
        }
        assertEquals(before, LIBRARY_CALLS.get(), "none of these needs the library");
    }

    /**
     * Long words of a few runs of one piece are merged as runs ({@link RunMerge}): odd and even counts, runs of two
     * and more pieces side by side, behind a space or a word, around the 256-symbol line; and words the runs decline
     * (byte fallback, surrogate pairs, too many runs), which the symbol-by-symbol sweep takes.
     */
    @Test
    void runsOfOnePieceMatchTheLibrary() {
        int before = LIBRARY_CALLS.get();
        String[] units = {"x", "y", "a", "e", "=", "-", ".", "!", "0", "1", "\n", "▁", "é", "Ω", "镇", "😀"};
        Random random = new Random(20261207);
        for (int n = 0; n < 150; n++) {
            StringBuilder text = new StringBuilder(random.nextInt(4) == 0 ? "the " : random.nextBoolean() ? " " : "");
            int runs = 1 + random.nextInt(n % 5 == 0 ? 40 : 6);
            for (int r = 0; r < runs; r++) {
                String unit = units[random.nextInt(units.length)];
                text.append(unit.repeat(1 + random.nextInt(random.nextBoolean() ? 9 : 700)));
            }
            if (random.nextInt(4) == 0) text.append(" end");
            assertSame(text.toString());
        }
        for (int n : new int[] {255, 256, 257, 258, 511, 512, 513, 1023, 1024, 1025}) {
            assertSame("x".repeat(n));
            assertSame("xx" + "y".repeat(n) + "x".repeat(n + 1));
            assertSame("=".repeat(n) + "-".repeat(n) + "=".repeat(n));
        }
        assertEquals(before, LIBRARY_CALLS.get(), "none of these needs the library");
    }

    /** The run path is taken where it should be, and declines what it cannot merge as runs. */
    @Test
    void runsAreMergedAsRunsOnlyWhereTheyCan() throws Exception {
        LlamaBpeModel model = LlamaBpeModel.of(json).orElseThrow();
        assertTrue(inRuns(model, "x".repeat(100_000)), "a repeated letter");
        assertTrue(inRuns(model, "=".repeat(3000) + "-".repeat(3001) + "x".repeat(3)), "a few runs");
        assertTrue(!inRuns(model, randomText(new Random(1), 3000, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")),
                "too many runs");
        assertTrue(inRuns(model, "镇".repeat(3000)), "a character that is a piece");
        assertTrue(!inRuns(model, "\uE000".repeat(3000)), "byte fallback (a private-use character)");
        assertTrue(!inRuns(model, "😀".repeat(3000)), "surrogate pairs");
    }

    /** Whether {@code model} merges the word {@code "▁" + text} as runs (then its tokens are the library's). */
    private static boolean inRuns(LlamaBpeModel model, String text) {
        char[] normalized = ("\u2581" + text).toCharArray();
        List<Integer> ids = new java.util.ArrayList<>();
        boolean taken = model.encodedInRuns(normalized, 0, normalized.length, (id, end) -> ids.add(id));
        if (taken) {
            long[] expected = library.encode(text);
            assertEquals(expected.length - 1, ids.size(), "tokens of the run path");
            for (int i = 0; i < ids.size(); i++) assertEquals(expected[i + 1], (long) ids.get(i), "token " + i);
        } else {
            assertTrue(ids.isEmpty(), "a declined word gives no tokens");
        }
        return taken;
    }

    /** Each thread merges in a workspace of its own: threads counting at once get the library's tokens. */
    @Test
    void threadsCountingAtOnceMatchTheLibrary() throws Exception {
        Random random = new Random(5);
        List<String> texts = List.of("x".repeat(40_000), randomText(random, 30_000,
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"), "ab".repeat(9000),
                "the quick brown fox ".repeat(500), "é".repeat(3000) + "x".repeat(2000));
        List<int[]> expected = texts.stream().map(library::tokenEnds).toList();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<Boolean>> results = new java.util.ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int offset = t;
                results.add(pool.submit(() -> {
                    for (int round = 0; round < 10; round++) {
                        int i = (offset + round) % texts.size();
                        if (!java.util.Arrays.equals(expected.get(i), inJava.tokenEnds(texts.get(i)))) return false;
                    }
                    return true;
                }));
            }
            for (java.util.concurrent.Future<Boolean> result : results) assertTrue(result.get(), "a thread's tokens");
        } finally {
            pool.shutdownNow();
        }
    }

    private static String randomText(Random random, int length, String alphabet) {
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        return text.toString();
    }

    /**
     * A table where a merge makes a pair of lower rank than its own (here "xx x" moved to rank 0, before "x x"):
     * the rank-by-rank sweep of a long word hands over to the heap there, and still gives the library's tokens.
     */
    @Test
    void aMergeMakingAPairOfLowerRankStillMatchesTheLibrary() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode reranked = (ObjectNode) mapper.readTree(json);
        com.fasterxml.jackson.databind.node.ArrayNode merges = (com.fasterxml.jackson.databind.node.ArrayNode)
                reranked.get("model").get("merges");
        int at = -1;
        for (int i = 0; i < merges.size(); i++) {
            if (merges.get(i).asText().equals("xx x")) at = i;
        }
        assertTrue(at > 0, "the built-in table merges \"xx x\"");
        merges.remove(at);
        merges.insert(0, "xx x");
        byte[] rerankedJson = mapper.writeValueAsBytes(reranked);
        DjlTokenizer rerankedLibrary = DjlTokenizer.load(TokenizerCache.extract(rerankedJson), "reranked");
        try {
            LlamaBpeTokenizer rerankedJava = new LlamaBpeTokenizer(LlamaBpeModel.of(rerankedJson).orElseThrow(),
                    () -> rerankedLibrary, "reranked");
            for (String text : List.of("x".repeat(300), "x".repeat(4097), "y".repeat(280) + "x".repeat(300),
                    "ab".repeat(200) + "x".repeat(999) + "ab".repeat(200), "x".repeat(7) + " " + "x".repeat(20))) {
                String shown = text.substring(0, 20) + "... (" + text.length() + " chars)";
                assertArrayEquals(rerankedLibrary.encodeWithOffsets(text).ids(), rerankedJava.encode(text), shown);
                assertArrayEquals(rerankedLibrary.encodeWithOffsets(text).endCharIndex(), rerankedJava.tokenEnds(text),
                        shown);
            }
            String run = "x".repeat(300);
            assertTrue(!java.util.Arrays.equals(library.encode(run), rerankedJava.encode(run)),
                    "the moved merge changes the tokens, so the lower-rank path was taken");
            char[] normalized = ("\u2581" + run).toCharArray();
            assertTrue(!LlamaBpeModel.of(rerankedJson).orElseThrow().encodedInRuns(normalized, 0, normalized.length,
                    (id, end) -> { }), "the run path gives the word up to the sweep");
        } finally {
            rerankedLibrary.close();
        }
    }

    @Test
    void anotherShapeIsNotTakenForLlama() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode withPreTokenizer = (ObjectNode) mapper.readTree(json);
        withPreTokenizer.set("pre_tokenizer", mapper.createObjectNode().put("type", "Metaspace"));
        assertTrue(LlamaBpeModel.of(mapper.writeValueAsBytes(withPreTokenizer)).isEmpty());
        ObjectNode ignoreMerges = (ObjectNode) mapper.readTree(json);
        ((ObjectNode) ignoreMerges.get("model")).put("ignore_merges", true);
        assertTrue(LlamaBpeModel.of(mapper.writeValueAsBytes(ignoreMerges)).isEmpty());
        ObjectNode crossingMerge = (ObjectNode) mapper.readTree(json);
        ((ObjectNode) crossingMerge.get("model").get("vocab")).put("a\u2581", 99_999);
        ((com.fasterxml.jackson.databind.node.ArrayNode) crossingMerge.get("model").get("merges")).add("a \u2581");
        assertTrue(LlamaBpeModel.of(mapper.writeValueAsBytes(crossingMerge)).isEmpty(), "a piece that joins two words");
        ObjectNode arrayMerges = (ObjectNode) mapper.readTree(json);
        com.fasterxml.jackson.databind.node.ArrayNode pairs = mapper.createArrayNode();
        arrayMerges.get("model").get("merges").forEach(m -> pairs.add(mapper.createArrayNode()
                .add(m.asText().split(" ")[0]).add(m.asText().split(" ")[1])));
        ((ObjectNode) arrayMerges.get("model")).set("merges", pairs);
        assertTrue(LlamaBpeModel.of(mapper.writeValueAsBytes(arrayMerges)).isPresent(), "merges as pairs (newer files)");
        assertTrue(LlamaBpeModel.of("{not json".getBytes(java.nio.charset.StandardCharsets.UTF_8)).isEmpty());
    }

    /** Merges are resolved as they stream in after the vocabulary, or at the end when they come first. */
    @Test
    void mergesBeforeTheVocabularyGiveTheSameTokens() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode reordered = (ObjectNode) mapper.readTree(json);
        ObjectNode model = (ObjectNode) reordered.get("model");
        ObjectNode mergesFirst = mapper.createObjectNode();
        mergesFirst.set("merges", model.get("merges"));
        model.fields().forEachRemaining(field -> {
            if (!field.getKey().equals("merges")) mergesFirst.set(field.getKey(), field.getValue());
        });
        reordered.set("model", mergesFirst);
        LlamaBpeTokenizer fromReordered = new LlamaBpeTokenizer(
                LlamaBpeModel.of(mapper.writeValueAsBytes(reordered)).orElseThrow(), () -> library, "reordered");
        for (String text : List.of("The quick brown fox jumps over the lazy dog.", "unbelievably tokenized\nlines",
                "Shall I compare thee to a summer's day?")) {
            assertArrayEquals(inJava.encode(text), fromReordered.encode(text), text);
            assertArrayEquals(library.encode(text), fromReordered.encode(text), text);
        }
        ObjectNode missingPiece = (ObjectNode) mapper.readTree(mapper.writeValueAsBytes(reordered));
        ((com.fasterxml.jackson.databind.node.ArrayNode) missingPiece.get("model").get("merges")).add("zq \u2581x");
        assertTrue(LlamaBpeModel.of(mapper.writeValueAsBytes(missingPiece)).isEmpty(), "a merge of unknown pieces");
    }
}
