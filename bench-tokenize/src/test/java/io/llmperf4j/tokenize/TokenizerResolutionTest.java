package io.llmperf4j.tokenize;

import static io.llmperf4j.tokenize.Llama2Fixture.llama2;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.tokenize.llama.BuiltInLlama2;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenizerResolutionTest {
    private static final long[] HELLO_WORLD_LLAMA = {1, 15043, 3186};

    @TempDir
    Path dir;

    @Test
    void llama2IsTheDefault() {
        Tokenizer llama = llama2();
        assertSame(llama, Tokenizers.resolve("llama-2", TokenizerOptions.defaults()));
        assertSame(llama, Tokenizers.resolve(Tokenizers.DEFAULT_SPEC, TokenizerOptions.defaults()));
        assertSame(llama, Tokenizers.resolve(" Llama2 ", TokenizerOptions.defaults()));
        assertEquals("llama-2 (built in)", llama.id());
    }

    @Test
    void readsAModelFromTheHuggingFaceCacheFollowingRefsMain() throws Exception {
        Path hub = fakeHub();
        TokenizerOptions options = TokenizerOptions.defaults().withHuggingFaceHubCache(hub);
        Tokenizer tokenizer = Tokenizers.resolve("x/y", options);
        assertEquals("hf:x/y@abc", tokenizer.id());
        assertArrayEquals(HELLO_WORLD_LLAMA, tokenizer.encode("Hello world"));
        assertEquals("hf:x/y@abc", Tokenizers.resolve("hf:x/y", options).id());
        assertEquals("hf:x/y@abc", Tokenizers.resolve("x/y@main", options).id());
        assertEquals("hf:x/y@abc", Tokenizers.resolve("x/y@abc", options).id());
    }

    @Test
    void aCommitNamedInFullIsReadWithoutRefs() throws Exception {
        Path hub = dir.resolve("hub");
        String commit = "0123456789abcdef0123456789abcdef01234567";
        copyLlama(hub.resolve("models--org--model/snapshots/" + commit));
        Tokenizer tokenizer = Tokenizers.resolve("org/model@" + commit,
                TokenizerOptions.defaults().withHuggingFaceHubCache(hub));
        assertEquals("hf:org/model@" + commit, tokenizer.id());
        // without refs/main, the only snapshot holding a tokenizer.json is taken
        assertEquals("hf:org/model@" + commit,
                Tokenizers.resolve("org/model", TokenizerOptions.defaults().withHuggingFaceHubCache(hub)).id());
    }

    @Test
    void aModelMissingFromTheCacheSaysWhereItLookedAndWhatToDo() {
        Path hub = dir.resolve("hub");
        TokenizerUnavailableException e = assertThrows(TokenizerUnavailableException.class,
                () -> Tokenizers.resolve("meta-llama/Llama-3.1-8B", TokenizerOptions.defaults().withHuggingFaceHubCache(hub)));
        assertEquals("Tokenizer meta-llama/Llama-3.1-8B is not in the local HuggingFace cache ("
                + hub.toAbsolutePath().resolve("models--meta-llama--Llama-3.1-8B") + " does not exist); "
                + "pass --allow-download or --tokenizer PATH", e.getMessage());
    }

    @Test
    void cacheProblemsAreNamed() throws Exception {
        Path hub = fakeHub();
        TokenizerOptions options = TokenizerOptions.defaults().withHuggingFaceHubCache(hub);
        Path model = hub.toAbsolutePath().resolve("models--x--y");

        assertEquals("Tokenizer x/y@v2 is not in the local HuggingFace cache (revision 'v2' is neither "
                        + model.resolve("refs/v2") + " nor a folder in " + model.resolve("snapshots")
                        + "); pass --allow-download or --tokenizer PATH",
                assertThrows(TokenizerUnavailableException.class, () -> Tokenizers.resolve("x/y@v2", options)).getMessage());

        Files.createDirectories(model.resolve("snapshots/def"));
        Files.writeString(model.resolve("snapshots/def/tokenizer.model"), "sentencepiece");
        Files.writeString(model.resolve("refs/main"), "def\n");
        String onlyModel = assertThrows(TokenizerUnavailableException.class, () -> Tokenizers.resolve("x/y", options)).getMessage();
        assertTrue(onlyModel.contains(model.resolve("snapshots/def") + " holds only a SentencePiece tokenizer.model"), onlyModel);

        Files.delete(model.resolve("refs/main"));
        copyLlama(model.resolve("snapshots/def"));
        String ambiguous = assertThrows(TokenizerUnavailableException.class, () -> Tokenizers.resolve("x/y", options)).getMessage();
        assertTrue(ambiguous.contains("2 snapshots in " + model.resolve("snapshots") + " hold a tokenizer.json (abc, def); "
                + "name one as x/y@COMMIT"), ambiguous);
        assertEquals("hf:x/y@def", Tokenizers.resolve("x/y@def", options).id());
    }

    @Test
    void downloadsOnlyTheMainRevision() {
        TokenizerOptions options = TokenizerOptions.defaults().withHuggingFaceHubCache(dir.resolve("hub")).withAllowDownload(true);
        String message = assertThrows(TokenizerUnavailableException.class, () -> Tokenizers.resolve("x/y@v1", options)).getMessage();
        assertTrue(message.contains("only the main revision can be downloaded"), message);
    }

    @Test
    void findsTheHubCacheLikeHuggingFaceDoes() {
        Path home = Path.of("/home/u");
        assertEquals(Path.of("/home/u/.cache/huggingface/hub"), TokenizerOptions.hubCacheFromEnvironment(Map.of(), home));
        assertEquals(Path.of("/x/huggingface/hub"), TokenizerOptions.hubCacheFromEnvironment(Map.of("XDG_CACHE_HOME", "/x"), home));
        assertEquals(Path.of("/hf/hub"), TokenizerOptions.hubCacheFromEnvironment(
                Map.of("HF_HOME", "/hf", "XDG_CACHE_HOME", "/x"), home));
        assertEquals(Path.of("/home/u/hf/hub"), TokenizerOptions.hubCacheFromEnvironment(Map.of("HF_HOME", "~/hf"), home));
        assertEquals(Path.of("/hc"), TokenizerOptions.hubCacheFromEnvironment(Map.of("HF_HUB_CACHE", "/hc", "HF_HOME", "/hf"), home));
        assertEquals(Path.of("/given"), TokenizerOptions.defaults().withHuggingFaceHubCache(Path.of("/given")).hubCache());
    }

    @Test
    void openAiEncodingsComeFromJtokkitWithoutBos() {
        Tokenizer cl100k = Tokenizers.resolve("cl100k_base", TokenizerOptions.defaults());
        assertEquals("jtokkit:cl100k_base", cl100k.id());
        assertArrayEquals(new long[] {9906, 1917}, cl100k.encode("Hello world"));
        assertEquals(2, cl100k.count("Hello world"), "no BOS");
        assertEquals(0, cl100k.count(""));
        assertEquals(2, cl100k.countWithoutSpecialTokens("Hello world"));
        assertEquals("Hello world", cl100k.decode(new long[] {9906, 1917}));
        assertArrayEquals(new long[] {13225, 2375}, Tokenizers.resolve("o200k_base", TokenizerOptions.defaults()).encode("Hello world"));
        assertArrayEquals(new long[] {15496, 995}, Tokenizers.resolve("jtokkit:r50k_base", TokenizerOptions.defaults()).encode("Hello world"));
        assertEquals("jtokkit:p50k_base", Tokenizers.resolve("p50k_base", TokenizerOptions.defaults()).id());
        // a special token's spelling is ordinary text
        assertEquals(7, cl100k.count("<|endoftext|>"));
    }

    @Test
    void jtokkitOffsetsEndAfterWholeCharacters() {
        Tokenizer cl100k = Tokenizers.jtokkit("cl100k_base");
        String text = "\uD83E\uDD99 caf\u00E9\n\nx"; // the llama emoji is 3 byte-level tokens, 2 UTF-16 units
        TokenizedText encoded = cl100k.encodeWithOffsets(text);
        assertArrayEquals(new long[] {9468, 99, 247, 53050, 271, 87}, encoded.ids());
        assertArrayEquals(new int[] {2, 2, 2, 7, 9, 10}, encoded.endCharIndex());
        assertEquals(text, cl100k.decode(encoded.ids()));
    }

    @Test
    void serverIsAMarkerThatCannotEncode() {
        Tokenizer server = Tokenizers.resolve("server", TokenizerOptions.defaults());
        assertSame(ServerUsageCounting.INSTANCE, server);
        assertInstanceOf(ServerUsageCounting.class, server);
        assertTrue(Tokenizers.isServerUsageCounting(server));
        assertFalse(Tokenizers.isServerUsageCounting(Tokenizers.jtokkit("cl100k_base")));
        assertEquals("server (usage counts)", server.id());
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> server.count("x"));
        assertTrue(e.getMessage().startsWith("The tokenizer 'server' takes token counts from the server's usage block"));
        assertThrows(UnsupportedOperationException.class, () -> server.encode("x"));
    }

    @Test
    void pathsAreFilesOrFoldersNamedByTheirAbsolutePath() throws Exception {
        Path folder = copyLlama(dir.resolve("tok"));
        Tokenizer byFolder = Tokenizers.resolve(folder.toString(), TokenizerOptions.defaults());
        assertEquals(folder.resolve("tokenizer.json").toAbsolutePath().toString(), byFolder.id());
        Tokenizer byFile = Tokenizers.resolve(folder.resolve("tokenizer.json").toString(), TokenizerOptions.defaults());
        assertArrayEquals(HELLO_WORLD_LLAMA, byFile.encode("Hello world"));

        Path missing = dir.resolve("nope/tokenizer.json");
        assertEquals("Tokenizer file " + missing.toAbsolutePath() + " does not exist",
                assertThrows(TokenizerUnavailableException.class,
                        () -> Tokenizers.resolve(missing.toString(), TokenizerOptions.defaults())).getMessage());
        assertInstanceOf(TokenizerSpec.LocalFile.class, TokenizerSpec.parse("tokenizer.json"));
        assertInstanceOf(TokenizerSpec.LocalFile.class, TokenizerSpec.parse("./models/x"));
        assertInstanceOf(TokenizerSpec.LocalFile.class, TokenizerSpec.parse("a/b/c"));
    }

    @Test
    void parsesSpecs() {
        assertEquals(new TokenizerSpec.HuggingFace("Qwen/Qwen2.5-7B-Instruct", null), TokenizerSpec.parse("Qwen/Qwen2.5-7B-Instruct"));
        assertEquals(new TokenizerSpec.HuggingFace("org/m", "refs/pr/1"), TokenizerSpec.parse("hf:org/m@refs/pr/1"));
        assertEquals(new TokenizerSpec.Jtokkit("o200k_base"), TokenizerSpec.parse("O200K_BASE"));
        assertEquals(new TokenizerSpec.Server(), TokenizerSpec.parse("server"));
        assertEquals("hf:org/m@v1", TokenizerSpec.parse("org/m@v1").toString());
    }

    @Test
    void unknownSpecsListTheAcceptedForms() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Tokenizers.resolve("gpt-17", TokenizerOptions.defaults()));
        assertEquals("Unknown tokenizer 'gpt-17' (it is no built-in name, no existing file and no ORG/NAME model id). "
                + "Use one of: llama-2 (built in, the default); PATH to a tokenizer.json or to a folder holding one; "
                + "ORG/NAME[@REVISION], a HuggingFace model id from the local HuggingFace cache; r50k_base, p50k_base, "
                + "p50k_edit, cl100k_base, o200k_base (OpenAI encodings, via jtokkit); server (use the server's usage "
                + "counts)", e.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TokenizerSpec.parse(" ")).getMessage()
                .startsWith("Unknown tokenizer ' ' (it is empty)"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TokenizerSpec.parse("jtokkit:gpt2")).getMessage()
                .startsWith("Unknown jtokkit encoding 'gpt2'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TokenizerSpec.parse("hf:nope")).getMessage()
                .contains("after 'hf:' comes a model id ORG/NAME[@REVISION]"));
    }

    /** {@code HUB/models--x--y/snapshots/abc/tokenizer.json} (the built-in Llama-2 one) and {@code refs/main} = abc. */
    private Path fakeHub() throws Exception {
        Path hub = dir.resolve("hub");
        Path model = hub.resolve("models--x--y");
        copyLlama(model.resolve("snapshots/abc"));
        Files.createDirectories(model.resolve("refs"));
        Files.writeString(model.resolve("refs/main"), "abc");
        return hub;
    }

    private static Path copyLlama(Path folder) throws Exception {
        llama2();
        Files.createDirectories(folder);
        try (InputStream in = Tokenizers.class.getClassLoader().getResourceAsStream(BuiltInLlama2.RESOURCE)) {
            Files.copy(in, folder.resolve("tokenizer.json"));
        }
        return folder;
    }
}
