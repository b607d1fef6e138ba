package io.llmperf4j.datasets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CorpusTest {

    @Test
    void readsLinesLikePythonReadlines(@TempDir Path dir) throws Exception {
        assertEquals(List.of("a\n", "b\n"), Corpus.readLines(write(dir, "a\nb\n")));
        assertEquals(List.of("a\n", "b"), Corpus.readLines(write(dir, "a\nb")));
        assertEquals(List.of("\n", "\n", "x"), Corpus.readLines(write(dir, "\n\nx")));
        assertEquals(List.of("  indented\n", "\ttab\n"), Corpus.readLines(write(dir, "  indented\n\ttab\n")));
    }

    @Test
    void readsUniversalNewlinesAsPythonTextModeDoes(@TempDir Path dir) throws Exception {
        assertEquals(List.of("a\n", "b\n", "c\n", "d"), Corpus.readLines(write(dir, "a\r\nb\rc\nd")));
    }

    @Test
    void decodesUtf8(@TempDir Path dir) throws Exception {
        assertEquals(List.of("caf\u00E9 \uD83E\uDD99\n", "\u9547"), Corpus.readLines(write(dir, "café 🦙\n镇")));
    }

    @Test
    void errorsNameTheFile(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing.txt");
        assertEquals("Corpus file " + missing + " does not exist",
                assertThrows(IllegalArgumentException.class, () -> Corpus.readLines(missing)).getMessage());
        assertEquals("Corpus file " + dir + " is not a regular file",
                assertThrows(IllegalArgumentException.class, () -> Corpus.readLines(dir)).getMessage());
        Path empty = write(dir, "");
        assertEquals("Corpus file " + empty + " is empty (it holds no text)",
                assertThrows(IllegalArgumentException.class, () -> Corpus.readLines(empty)).getMessage());
        Path blank = write(dir, "\n \n\t\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Corpus.readLines(blank)).getMessage()
                .contains(blank.toString()));
        Path latin1 = Files.write(dir.resolve("latin1.txt"), new byte[] {'c', 'a', 'f', (byte) 0xE9, '\n'});
        assertEquals("Corpus file " + latin1 + " is not valid UTF-8 text",
                assertThrows(IllegalArgumentException.class, () -> Corpus.readLines(latin1)).getMessage());
    }

    @Test
    void fileCorpusIsIdentifiedByPathAndDigest(@TempDir Path dir) throws Exception {
        Path file = write(dir, "abc\n");
        Corpus corpus = Corpus.fromFile(file);
        assertEquals(file.toAbsolutePath().normalize().toString(), corpus.id());
        assertEquals(List.of("abc\n"), corpus.lines());
        // sha256("abc\n"), as `printf 'abc\n' | sha256sum` prints it
        assertEquals("edeaaff3f1774ad2888673770c6d64097e391bc362d7d6fb34982ddf0efd18cb", corpus.sha256());
        assertThrows(UnsupportedOperationException.class, () -> corpus.lines().add("x"));
    }

    @Test
    void readsLlmperfsSonnetCorpus() {
        String shared = System.getProperty("shared.dir");
        Assumptions.assumeTrue(shared != null, "shared.dir not set");
        Path sonnet = Path.of(shared, "corpus", "sonnet.txt");
        Assumptions.assumeTrue(Files.isRegularFile(sonnet), "no " + sonnet);

        Corpus corpus = Corpus.fromFile(sonnet);
        assertEquals(84, corpus.lines().size());
        assertEquals(3641, String.join("", corpus.lines()).getBytes(StandardCharsets.UTF_8).length);
        assertEquals("a4fef83b31e3769bc1c8e9b795a5e442929ea101c54d4e00c93516179f9ad2e0", corpus.sha256());
        assertTrue(corpus.lines().stream().limit(83).allMatch(line -> line.endsWith("\n")));
    }

    private static Path write(Path dir, String text) throws Exception {
        return Files.writeString(Files.createTempFile(dir, "corpus", ".txt"), text, StandardCharsets.UTF_8);
    }
}
