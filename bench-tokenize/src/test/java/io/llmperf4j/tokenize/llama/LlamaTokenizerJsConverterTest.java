package io.llmperf4j.tokenize.llama;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LlamaTokenizerJsConverterTest {
    /** Where the build's npm pack put the tarball (Surefire runs in the module folder). */
    private static final Path TARBALL = Path.of("target", "npm", BuiltInLlama2.TARBALL_FILE_NAME);

    @Test
    void parsesTheTwoBase64ConstantsOfTheJavaScriptSource() {
        List<String> vocab = new ArrayList<>();
        for (int i = 0; i < LlamaTokenizerJsData.VOCAB_SIZE; i++) vocab.add("t" + i);
        vocab.set(13, "<0x0A>");
        vocab.set(100, "a\rb"); // real Llama tokens such as ";\r" hold a carriage return
        byte[] merges = new byte[4 * LlamaTokenizerJsData.MERGE_COUNT];
        merges[0] = (byte) 0x6F; // merge 0 = (29807, 260): little-endian uint16 0x746F, 0x0104
        merges[1] = 0x74;
        merges[2] = 0x04;
        merges[3] = 0x01;
        String js = "const x = 1;\nconst llama_vocab_base64 = \""
                + Base64.getEncoder().encodeToString(String.join("\n", vocab).getBytes(StandardCharsets.UTF_8))
                + "\"\n\nconst llama_merges_binary = \"" + Base64.getEncoder().encodeToString(merges) + "\"\n";

        LlamaTokenizerJsData data = LlamaTokenizerJsData.fromJavaScript(js);

        assertEquals(vocab, data.vocab());
        assertEquals(LlamaTokenizerJsData.MERGE_COUNT, data.mergeCount());
        assertArrayEquals(new int[] {29807, 260}, new int[] {data.mergeIds()[0], data.mergeIds()[1]});
        assertEquals(0, data.mergeIds()[2]);
    }

    @Test
    void rejectsDataOfTheWrongShape() {
        String js = "const llama_vocab_base64 = \"" + Base64.getEncoder().encodeToString("a\nb".getBytes(StandardCharsets.UTF_8))
                + "\"\nconst llama_merges_binary = \"\"";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LlamaTokenizerJsData.fromJavaScript(js));
        assertEquals("vocabulary has 2 tokens, expected 32000", e.getMessage());
    }

    @Test
    void buildsTheHuggingFaceLlamaTokenizerJson() throws IOException {
        JsonNode json = HfTokenizerJson.build(realData());

        JsonNode model = json.get("model");
        assertEquals("BPE", model.get("type").asText());
        assertTrue(model.get("byte_fallback").asBoolean());
        assertTrue(model.get("fuse_unk").asBoolean());
        assertEquals("<unk>", model.get("unk_token").asText());
        assertEquals(32_000, model.get("vocab").size());
        assertEquals(13, model.get("vocab").get("<0x0A>").asInt());
        assertEquals(29871, model.get("vocab").get("\u2581").asInt());
        assertEquals(15043, model.get("vocab").get("\u2581Hello").asInt());
        assertEquals(61_249, model.get("merges").size());
        assertEquals("\u2581 t", model.get("merges").get(0).asText());

        assertEquals("[{\"id\":0,\"content\":\"<unk>\",\"single_word\":false,\"lstrip\":false,\"rstrip\":false,"
                + "\"normalized\":false,\"special\":true},{\"id\":1,\"content\":\"<s>\",\"single_word\":false,"
                + "\"lstrip\":false,\"rstrip\":false,\"normalized\":false,\"special\":true},{\"id\":2,"
                + "\"content\":\"</s>\",\"single_word\":false,\"lstrip\":false,\"rstrip\":false,"
                + "\"normalized\":false,\"special\":true}]", json.get("added_tokens").toString());
        assertEquals("{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":\"\u2581\"},"
                + "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"\u2581\"}]}",
                json.get("normalizer").toString());
        assertTrue(json.get("pre_tokenizer").isNull());
        assertEquals("[{\"SpecialToken\":{\"id\":\"<s>\",\"type_id\":0}},{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}]",
                json.get("post_processor").get("single").toString());
        assertEquals("{\"type\":\"Sequence\",\"decoders\":[{\"type\":\"Replace\",\"pattern\":{\"String\":\"\u2581\"},"
                + "\"content\":\" \"},{\"type\":\"ByteFallback\"},{\"type\":\"Fuse\"},"
                + "{\"type\":\"Strip\",\"content\":\" \",\"start\":1,\"stop\":0}]}", json.get("decoder").toString());
    }

    @Test
    void conversionIsDeterministic(@TempDir Path dir) throws IOException {
        assumeTrue(Files.isRegularFile(TARBALL), "no npm tarball in this build");
        LlamaTokenizerJsConverter.convert(TARBALL, dir.resolve("a.json"));
        LlamaTokenizerJsConverter.convert(TARBALL, dir.resolve("b.json"));
        byte[] a = Files.readAllBytes(dir.resolve("a.json"));
        assertArrayEquals(a, Files.readAllBytes(dir.resolve("b.json")));
        assertEquals(61_249, new ObjectMapper().readTree(a).get("model").get("merges").size());
    }

    @Test
    void rejectsATarballWithAnotherDigest(@TempDir Path dir) throws IOException {
        Path fake = Files.write(dir.resolve(BuiltInLlama2.TARBALL_FILE_NAME), new byte[] {1, 2, 3});
        Path output = dir.resolve("out/tokenizer.json");
        IOException e = assertThrows(IOException.class, () -> LlamaTokenizerJsConverter.convert(fake, output));
        assertTrue(e.getMessage().contains("expected the registry's " + BuiltInLlama2.TARBALL_SHA512_BASE64), e.getMessage());
        assertFalse(Files.exists(output));
    }

    @Test
    void withoutNpmTheBuildStepWarnsOnceAndWritesNothing(@TempDir Path dir) {
        Path output = dir.resolve("classes/tokenizer.json");
        String previous = System.setProperty(NpmPack.NPM_PROPERTY, dir.resolve("no-such-npm").toString());
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            LlamaTokenizerJsConverter.main(new String[] {dir.resolve("npm").toString(), output.toString()});
        } finally {
            System.setOut(stdout);
            if (previous == null) System.clearProperty(NpmPack.NPM_PROPERTY);
            else System.setProperty(NpmPack.NPM_PROPERTY, previous);
        }
        List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().toList();
        assertEquals(1, lines.size(), lines::toString);
        assertTrue(lines.get(0).startsWith("[WARNING] " + BuiltInLlama2.UNAVAILABLE_MESSAGE + " Cause: cannot run npm"),
                lines.get(0));
        assertFalse(Files.exists(output));
    }

    private static LlamaTokenizerJsData realData() throws IOException {
        assumeTrue(Files.isRegularFile(TARBALL), "no npm tarball in this build");
        try (InputStream in = Files.newInputStream(TARBALL)) {
            return LlamaTokenizerJsData.fromTarball(in);
        }
    }
}
