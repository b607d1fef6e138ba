package io.llmperf4j.datasets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.Tokenizers;
import io.llmperf4j.tokenize.prompt.LengthDistribution;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PromptListDatasetTest {
    private final Tokenizer cl100k = Tokenizers.jtokkit("cl100k_base");

    @TempDir
    Path dir;

    @Test
    void readsPromptsInFileOrderAndWrapsAround() throws Exception {
        Path file = write("{\"prompt\": \"Hello world\", \"max_tokens\": 128}\n"
                + "\n"
                + "{\"prompt\": \"Summarize: the cat sat on the mat.\", \"max_tokens\": 32, \"id\": \"ignored\"}\n");
        PromptListDataset dataset = PromptListDataset.load(file);
        assertEquals(2, dataset.size());
        Workload workload = dataset.workload(cl100k, 5, 1, null);
        assertEquals(List.of(
                new RequestSpec(0, "Hello world", 2, 128),
                new RequestSpec(1, "Summarize: the cat sat on the mat.", 11, 32),
                new RequestSpec(2, "Hello world", 2, 128),
                new RequestSpec(3, "Summarize: the cat sat on the mat.", 11, 32),
                new RequestSpec(4, "Hello world", 2, 128)), workload.requests());
        assertEquals(Workload.PROMPTS, workload.kind());
        assertEquals(file.toString(), workload.sourceId());
        assertEquals(Hashing.sha256Hex(Files.readAllBytes(file)), workload.sourceSha256());
        assertEquals(2, dataset.workload(cl100k, 0, 1, null).requests().size(), "0: one request per line");
        // the wrap is recorded with the workload, for the run to say and a saved manifest to keep
        assertEquals(2, workload.generation().get("distinct_prompts"));
        assertEquals(3, workload.generation().get("passes"));
        assertEquals(null, dataset.workload(cl100k, 2, 1, null).generation().get("passes"), "each line once");
    }

    /** CPython: {@code r = random.Random(11111); [r.randint(10, 20) for _ in range(3)]} after no other draw: 15, 10, 15. */
    @Test
    void drawsMissingMaxTokensFromTheOutputDistribution() throws Exception {
        Path file = write("{\"prompt\": \"Hello world\"}\n{\"prompt\": \"Translate to French: good morning\", \"max_tokens\": 9}\n"
                + "{\"prompt\": \"Name three colors\", \"max_tokens\": null}\n");
        Workload workload = PromptListDataset.load(file).workload(cl100k, 3, 11111, LengthDistribution.uniform(10, 20));
        assertEquals(List.of(new RequestSpec(0, "Hello world", 2, 15), new RequestSpec(1, "Translate to French: good morning", 6, 9),
                new RequestSpec(2, "Name three colors", 3, 10)), workload.requests());
        DatasetFormatException e = assertThrows(DatasetFormatException.class,
                () -> PromptListDataset.load(file).workload(cl100k, 3, 1, null));
        assertEquals("Prompt file " + file + ", line 1: no \"max_tokens\": give it on every line, or "
                + "--output-lengths DIST (e.g. normal:150,10) for the lines without one",
                e.getMessage());
    }

    @Test
    void malformedLinesAreNamed() throws Exception {
        assertError("{\"prompt\": \"ok\"}\n{\"prompt\": }\n", "line 2: not valid JSON: ");
        assertError("{\"prompt\": \"ok\"}\n\n[1, 2]\n", "line 3: expected a JSON object {\"prompt\": ...}");
        assertError("{\"text\": \"x\"}\n", "line 1: no \"prompt\"");
        assertError("{\"prompt\": 5}\n", "line 1: \"prompt\" must be a string");
        assertError("{\"prompt\": \"\"}\n", "line 1: \"prompt\" is empty");
        assertError("{\"prompt\": \"x\", \"max_tokens\": 0}\n", "line 1: \"max_tokens\" must be a positive integer, not 0");
        assertError("{\"prompt\": \"x\", \"max_tokens\": 1.5}\n", "line 1: \"max_tokens\" must be a positive integer, not 1.5");
        assertError("\n \n", "line 1: the file holds no prompt");
    }

    @Test
    void parsesDatasetSpecs() {
        assertEquals(new DatasetSpec(Workload.SHAREGPT, Path.of("/d/sg.json")), DatasetSpec.parse("sharegpt:/d/sg.json"));
        assertEquals(new DatasetSpec(Workload.PROMPTS, Path.of("p.jsonl")), DatasetSpec.parse("prompts:p.jsonl"));
        assertEquals(new DatasetSpec(Workload.PROMPTS, Path.of("p.jsonl")), DatasetSpec.parse("JSONL:p.jsonl"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DatasetSpec.parse("sg.json"));
        assertEquals("Unknown dataset 'sg.json'; use " + DatasetSpec.FORMS, e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DatasetSpec.parse("sharegpt:"));
    }

    private void assertError(String text, String expectedEnd) throws Exception {
        Path file = write(text);
        DatasetFormatException e = assertThrows(DatasetFormatException.class, () -> PromptListDataset.load(file));
        assertTrue(e.getMessage().startsWith("Prompt file " + file + ", " + expectedEnd), e.getMessage());
    }

    private Path write(String text) throws Exception {
        return Files.writeString(Files.createTempFile(dir, "prompts", ".jsonl"), text, StandardCharsets.UTF_8);
    }
}
