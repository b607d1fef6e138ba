package io.llmperf4j.tokenize;

import static io.llmperf4j.tokenize.Llama2Fixture.llama2;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.tokenize.llama.BuiltInLlama2;
import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenizersTest {
    private static final String SENTENCE = "The quick brown fox jumps over the lazy dog.";

    @Test
    void encodesLlmperfReferenceIdsWithBos() {
        Tokenizer llama = llama2();
        assertArrayEquals(new long[] {1, 15043, 3186}, llama.encode("Hello world"));
        assertArrayEquals(new long[] {1, 29871, 2646, 1327, 287}, llama.encode(" grabbed"));
        assertArrayEquals(new long[] {1, 29871, 13}, llama.encode("\n"));
        // not in the vocabulary: byte fallback to the four UTF-8 bytes F0 9F A6 99 (ids = byte + 3)
        assertArrayEquals(new long[] {1, 29871, 243, 162, 169, 156}, llama.encode("🦙"));
        assertEquals(3, llama.count("Hello world"));
        assertEquals(2, llama.countWithoutSpecialTokens("Hello world"));
        assertEquals(1, llama.count(""), "llmperf counts an empty text as 1: the BOS");
        assertEquals(0, llama.countWithoutSpecialTokens(""));
    }

    /** Every encode case of llama-tokenizer-js 1.2.2's own test suite, up to its 423-token paragraph. */
    @Test
    void matchesLlamaTokenizerJsGroundTruth() throws Exception {
        Tokenizer llama = llama2();
        JsonNode cases;
        try (InputStream in = getClass().getResourceAsStream("llama/llama-tokenizer-js-1.2.2-cases.json")) {
            cases = new ObjectMapper().readTree(in);
        }
        assertEquals(12, cases.size());
        for (JsonNode testCase : cases) {
            String text = testCase.get("text").asText();
            long[] expected = new long[testCase.get("ids").size()];
            for (int i = 0; i < expected.length; i++) expected[i] = testCase.get("ids").get(i).asLong();
            assertArrayEquals(expected, llama.encode(text), () -> "encode(" + text + ")");
            assertEquals(text, llama.decode(expected), () -> "decode of " + text);
        }
        assertEquals(423, cases.get(11).get("ids").size());
    }

    @Test
    void countsLongTextsInFullWithoutTruncationAt512() {
        Tokenizer llama = llama2();
        // 12 tokens (ids checked with llama-tokenizer-js itself); copies joined by " " tokenize the same (no merge
        // crosses "." and "▁"), and the trailing " " of the last copy is one more "▁". llama-tokenizer-js also
        // counts 566 for 47 copies and 3,602 for 300.
        assertArrayEquals(new long[] {450, 4996, 17354, 1701, 29916, 432, 17204, 975, 278, 17366, 11203, 29889},
                dropBos(llama.encode(SENTENCE)));
        int perCopy = 12;
        for (int copies : new int[] {10, 47, 100, 300}) {
            String text = (SENTENCE + " ").repeat(copies);
            assertEquals(1 + copies * perCopy + 1, llama.count(text), () -> copies + " copies");
        }
        assertEquals(3602, llama.count((SENTENCE + " ").repeat(300)));
    }

    @Test
    void decodeRoundTripsTextWithNewlinesAndNonAscii() {
        Tokenizer llama = llama2();
        String text = "Shall I compare thee to a summer's day?\nThou art more lovely — and more temperate 🦙.\n";
        assertEquals(text, llama.decode(llama.encode(text)));
    }

    @Test
    void offsetsPointPastEachTokenInUtf16Units() {
        TokenizedText encoded = llama2().encodeWithOffsets("a🦙b c");
        assertArrayEquals(new long[] {1, 263, 243, 162, 169, 156, 29890, 274}, encoded.ids());
        // the llama is one code point but two UTF-16 units; its 4 byte tokens all end after it
        assertArrayEquals(new int[] {TokenizedText.NO_OFFSET, 1, 3, 3, 3, 3, 4, 6}, encoded.endCharIndex());
    }

    @Test
    void builtInIsLoadedOnceAndNamed() {
        Tokenizer llama = llama2();
        assertSame(llama, Tokenizers.builtInLlama2());
        assertEquals("llama-2 (built in)", llama.id());
    }

    @Test
    void concurrentCountsAgreeWithSequentialOnes() throws Exception {
        Tokenizer llama = llama2();
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < 64; i++) texts.add((SENTENCE + " ").repeat(1 + i % 13) + i);
        List<Integer> expected = texts.stream().map(llama::count).toList();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            for (int round = 0; round < 20; round++) {
                List<Future<Integer>> counts = new ArrayList<>();
                for (String text : texts) counts.add(pool.submit(() -> llama.count(text)));
                for (int i = 0; i < texts.size(); i++) assertEquals(expected.get(i), counts.get(i).get());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void loadsATokenizerJsonFromItsFileOrItsFolder(@TempDir Path dir) throws Exception {
        llama2();
        Path extracted = TokenizerCache.extract(resourceBytes(), dir.resolve("cache"));
        Tokenizer fromFile = Tokenizers.fromPath(extracted);
        assertEquals(extracted.toAbsolutePath().toString(), fromFile.id());
        assertArrayEquals(new long[] {1, 15043, 3186}, fromFile.encode("Hello world"));
        Tokenizer fromFolder = Tokenizers.fromPath(extracted.getParent());
        assertEquals(3602, fromFolder.count((SENTENCE + " ").repeat(300)));
    }

    @Test
    void cacheIsContentAddressedAndReused(@TempDir Path dir) throws Exception {
        byte[] json = "{\"not\":\"a tokenizer\"}".getBytes(StandardCharsets.UTF_8);
        Path first = TokenizerCache.extract(json, dir);
        assertEquals(dir.resolve(TokenizerCache.sha256Hex(json).substring(0, 16)).resolve("tokenizer.json"), first);
        assertArrayEquals(json, Files.readAllBytes(first));
        Files.writeString(first, "corrupted");
        assertEquals(first, TokenizerCache.extract(json, dir));
        assertArrayEquals(json, Files.readAllBytes(first), "a file with the wrong digest is rewritten");
        try (var files = Files.list(first.getParent())) {
            assertEquals(1, files.count(), "no temporary files left behind");
        }
    }

    @Test
    void missingPathsAreNamedInTheError(@TempDir Path dir) {
        Path missingFile = dir.resolve("nope/tokenizer.json");
        TokenizerUnavailableException noFile =
                assertThrows(TokenizerUnavailableException.class, () -> Tokenizers.fromPath(missingFile));
        assertTrue(noFile.getMessage().contains(missingFile.toAbsolutePath().toString()), noFile.getMessage());

        TokenizerUnavailableException emptyFolder =
                assertThrows(TokenizerUnavailableException.class, () -> Tokenizers.fromPath(dir));
        assertEquals("Tokenizer folder " + dir.toAbsolutePath() + " holds no tokenizer.json", emptyFolder.getMessage());
    }

    @Test
    void aFileThatIsNotATokenizerIsNamedInTheError(@TempDir Path dir) throws Exception {
        Path bogus = Files.writeString(dir.resolve("tokenizer.json"), "{\"model\": 42}");
        TokenizerUnavailableException e =
                assertThrows(TokenizerUnavailableException.class, () -> Tokenizers.fromPath(bogus));
        assertTrue(e.getMessage().startsWith("Cannot load tokenizer " + bogus.toAbsolutePath()), e.getMessage());
    }

    @Test
    void aBuildWithoutTheResourceSaysHowToSupplyATokenizer() throws Exception {
        try (URLClassLoader empty = new URLClassLoader(new URL[0], null)) {
            TokenizerUnavailableException e = assertThrows(TokenizerUnavailableException.class,
                    () -> Tokenizers.loadBuiltInLlama2(empty));
            assertEquals(BuiltInLlama2.UNAVAILABLE_MESSAGE, e.getMessage());
            assertTrue(e.getMessage().contains("--tokenizer PATH"));
        }
    }

    private static long[] dropBos(long[] ids) {
        assertEquals(1, ids[0]);
        return java.util.Arrays.copyOfRange(ids, 1, ids.length);
    }

    private static byte[] resourceBytes() throws Exception {
        try (InputStream in = Tokenizers.class.getClassLoader().getResourceAsStream(BuiltInLlama2.RESOURCE)) {
            return in.readAllBytes();
        }
    }
}
