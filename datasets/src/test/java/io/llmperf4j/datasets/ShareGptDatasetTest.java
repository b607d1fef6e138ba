package io.llmperf4j.datasets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.ServerUsageCounting;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.Tokenizers;
import io.llmperf4j.tokenize.prompt.LengthDistribution;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShareGptDatasetTest {
    /** cl100k_base token counts (jtokkit) are noted next to each text. */
    static final List<String> CONVERSATIONS = List.of(
            // $[0]: prompt 2 tokens, reply 5
            "{\"id\": \"a\", \"conversations\": [{\"from\": \"human\", \"value\": \"Hello world\"}, "
                    + "{\"from\": \"gpt\", \"value\": \"Hi there, friend.\"}]}",
            // $[1]: starts with the assistant; the first user turn (6) and its reply (2) count
            "{\"conversations\": [{\"from\": \"gpt\", \"value\": \"Welcome\"}, {\"from\": \"human\", \"value\": "
                    + "\"What is two plus two?\"}, {\"from\": \"gpt\", \"value\": \"Four.\"}, {\"from\": \"human\", "
                    + "\"value\": \"Thanks\"}]}",
            // $[2]: no reply: skipped
            "{\"conversations\": [{\"from\": \"human\", \"value\": \"Anyone there?\"}]}",
            // $[3]: OpenAI style with a system turn and content parts: prompt 4, reply 8
            "{\"messages\": [{\"role\": \"system\", \"content\": \"Be brief.\"}, {\"role\": \"user\", \"content\": "
                    + "\"Tell me a joke\"}, {\"role\": \"assistant\", \"content\": [{\"type\": \"text\", \"text\": "
                    + "\"Why did \"}, {\"type\": \"text\", \"text\": \"the chicken cross the road?\"}]}]}",
            // $[4]: prompt 3, reply 6
            "{\"conversations\": [{\"role\": \"user\", \"content\": \"Name three colors\"}, {\"role\": \"assistant\", "
                    + "\"content\": \"Red, green and blue.\"}]}",
            // $[5]: an empty reply: skipped
            "{\"conversations\": [{\"from\": \"human\", \"value\": \"Say nothing\"}, {\"from\": \"gpt\", \"value\": \" \"}]}");

    private final Tokenizer cl100k = Tokenizers.jtokkit("cl100k_base");

    @TempDir
    Path dir;

    @Test
    void readsFirstExchangesFromAJsonArray() throws Exception {
        Path file = write("sg.json", "[\n" + String.join(",\n", CONVERSATIONS) + "\n]\n");
        ShareGptDataset dataset = ShareGptDataset.load(file);
        assertEquals(6, dataset.conversationCount());
        assertEquals(4, dataset.exchangeCount());
        assertEquals(List.of("$[0]", "$[1]", "$[3]", "$[4]"),
                dataset.exchanges().stream().map(ShareGptDataset.Exchange::location).toList());
        assertEquals("Why did the chicken cross the road?", dataset.exchanges().get(2).reply());
        assertEquals(file.toString(), dataset.id());
        assertEquals(Hashing.sha256Hex(Files.readAllBytes(file)), dataset.sha256());
    }

    /** CPython: {@code r = random.Random(7); l = [0, 1, 2, 3]; r.shuffle(l)} gives [3, 1, 0, 2]. */
    @Test
    void shufflesWithTheSeedAndTakesTheReplyLengthAsMaxTokens() throws Exception {
        ShareGptDataset dataset = ShareGptDataset.load(write("sg.json", "[" + String.join(",", CONVERSATIONS) + "]"));
        Workload workload = dataset.sample(cl100k, 6, 7, ShareGptOptions.defaults());
        assertEquals(List.of(
                new RequestSpec(0, "Name three colors", 3, 6),
                new RequestSpec(1, "What is two plus two?", 6, 2),
                new RequestSpec(2, "Hello world", 2, 5),
                new RequestSpec(3, "Tell me a joke", 4, 8),
                new RequestSpec(4, "Name three colors", 3, 6), // only 4 exchanges: used again in the same order
                new RequestSpec(5, "What is two plus two?", 6, 2)), workload.requests());
        assertEquals(Workload.SHAREGPT, workload.kind());
        assertEquals("jtokkit:cl100k_base", workload.tokenizerId());
        assertEquals(7, workload.seed());
        assertEquals(Map.of("dataset", "sharegpt", "max_tokens", "reply length", "request_count", 6,
                "distinct_prompts", 4, "passes", 2), workload.generation());
        assertEquals(workload, dataset.sample(cl100k, 6, 7, ShareGptOptions.defaults()));
    }

    @Test
    void filtersByPromptAndReplyTokens() throws Exception {
        ShareGptDataset dataset = ShareGptDataset.load(write("sg.json", "[" + String.join(",", CONVERSATIONS) + "]"));
        assertEquals(List.of("Name three colors", "What is two plus two?", "Tell me a joke", "Name three colors"),
                prompts(dataset.sample(cl100k, 4, 7, ShareGptOptions.defaults().withPromptTokens(3, 100))));
        assertEquals(List.of("What is two plus two?", "Hello world"),
                prompts(dataset.sample(cl100k, 2, 7, ShareGptOptions.defaults().withOutputTokens(1, 5))));
        Workload few = dataset.sample(cl100k, 3, 7, ShareGptOptions.defaults().withPromptTokens(4, 5));
        assertEquals(List.of("Tell me a joke", "Tell me a joke", "Tell me a joke"), prompts(few));
        assertEquals(4, few.generation().get("min_prompt_tokens"));
        assertEquals(5, few.generation().get("max_prompt_tokens"));

        IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
                () -> dataset.sample(cl100k, 3, 7, ShareGptOptions.defaults().withPromptTokens(100, 200)));
        assertEquals("No conversation of ShareGPT file " + dataset.file() + " fits: 6 conversations, 4 with a prompt "
                + "and a reply; of those 4 prompts below 100 tokens, 0 above 200, 0 replies below 1 tokens, 0 above "
                + ShareGptOptions.UNBOUNDED + " (counted with jtokkit:cl100k_base)", none.getMessage());
    }

    /** CPython: after shuffling 4 items, {@code r.randint(10, 20)} four times gives 20, 10, 11, 18 (seed 7). */
    @Test
    void canDrawMaxTokensInstead() throws Exception {
        ShareGptDataset dataset = ShareGptDataset.load(write("sg.json", "[" + String.join(",", CONVERSATIONS) + "]"));
        Workload workload = dataset.sample(cl100k, 4, 7,
                ShareGptOptions.defaults().withOutputLengths(LengthDistribution.uniform(10, 20)));
        assertEquals(List.of(20, 10, 11, 18), workload.requests().stream().map(RequestSpec::maxTokens).toList());
        assertEquals(Map.of("distribution", "uniform", "min", 10, "max", 20), workload.generation().get("max_tokens"));
    }

    @Test
    void readsJsonLinesWithTheSameResult() throws Exception {
        ShareGptDataset array = ShareGptDataset.load(write("sg.json", "[" + String.join(",", CONVERSATIONS) + "]"));
        ShareGptDataset lines = ShareGptDataset.load(write("sg.jsonl", "\n" + String.join("\n", CONVERSATIONS) + "\n"));
        assertEquals(6, lines.conversationCount());
        assertEquals(List.of("line 2", "line 3", "line 5", "line 6"),
                lines.exchanges().stream().map(ShareGptDataset.Exchange::location).toList());
        assertEquals(array.sample(cl100k, 5, 3, ShareGptOptions.defaults()).requests(),
                lines.sample(cl100k, 5, 3, ShareGptOptions.defaults()).requests());
    }

    @Test
    void malformedInputNamesTheFileAndWhere() throws Exception {
        Path badTurn = write("a.json", "[{\"conversations\": []},\n {\"conversations\": [{\"from\": \"human\"}]}]");
        assertEquals("ShareGPT file " + badTurn + ", $[1].conversations[0] (line 2): the turn has no value or content",
                assertThrows(DatasetFormatException.class, () -> ShareGptDataset.load(badTurn)).getMessage());

        Path notObject = write("b.json", "[{\"conversations\": []}, 5]");
        assertEquals("ShareGPT file " + notObject + ", $[1] (line 1): a conversation must be a JSON object, not a number",
                assertThrows(DatasetFormatException.class, () -> ShareGptDataset.load(notObject)).getMessage());

        Path syntax = write("c.json", "[\n{\"conversations\": [\n{\"from\": \"human\", \"value\": \"x\",}\n]}\n]");
        DatasetFormatException e = assertThrows(DatasetFormatException.class, () -> ShareGptDataset.load(syntax));
        assertTrue(e.getMessage().startsWith("ShareGPT file " + syntax + ", $[0] (line 3, column 32): not valid JSON: "),
                e.getMessage());
        assertEquals("$[0] (line 3, column 32)", e.location());

        Path badRole = write("d.jsonl", "{\"conversations\": []}\n\n{\"conversations\": [{\"from\": 1, \"value\": \"x\"}]}\n");
        assertEquals("ShareGPT file " + badRole + ", line 3, $.conversations[0].from: must be a string",
                assertThrows(DatasetFormatException.class, () -> ShareGptDataset.load(badRole)).getMessage());

        Path badLine = write("e.jsonl", "{\"conversations\": []}\n{\"conversations\": [}\n");
        assertTrue(assertThrows(DatasetFormatException.class, () -> ShareGptDataset.load(badLine)).getMessage()
                .startsWith("ShareGPT file " + badLine + ", line 2: not valid JSON: "));

        Path noTurns = write("f.jsonl", "{\"id\": 1}\n");
        assertEquals("ShareGPT file " + noTurns + ", line 1, $: the conversation has no conversations, conversation, "
                + "messages array", assertThrows(DatasetFormatException.class, () -> ShareGptDataset.load(noTurns)).getMessage());

        Path text = write("g.json", "\n\n\"conversations\"");
        assertEquals("ShareGPT file " + text + ", line 3: expected a JSON array of conversations or JSON Lines (one "
                + "conversation object per line), found '\"'",
                assertThrows(DatasetFormatException.class, () -> ShareGptDataset.load(text)).getMessage());

        Path empty = write("h.json", "");
        assertEquals("ShareGPT file " + empty + ", line 1: the file is empty",
                assertThrows(DatasetFormatException.class, () -> ShareGptDataset.load(empty)).getMessage());

        Path missing = dir.resolve("missing.json");
        assertEquals("ShareGPT file " + missing + " does not exist",
                assertThrows(IllegalArgumentException.class, () -> ShareGptDataset.load(missing)).getMessage());
    }

    @Test
    void theServerMarkerCannotCountPrompts() throws Exception {
        ShareGptDataset dataset = ShareGptDataset.load(write("sg.json", "[" + String.join(",", CONVERSATIONS) + "]"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> dataset.sample(ServerUsageCounting.INSTANCE, 1, 1, ShareGptOptions.defaults()));
        assertTrue(e.getMessage().startsWith("Building a workload needs a tokenizer that can count prompt tokens"));
    }

    private Path write(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
    }

    private static List<String> prompts(Workload workload) {
        return workload.requests().stream().map(RequestSpec::prompt).toList();
    }
}
