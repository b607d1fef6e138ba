package io.llmperf4j.datasets;

import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.Tokenizers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code --turns all}'s session ids: the dataset's own conversation id, {@code s<index in the file>} without one (or
 * when the id was met before), a later pass's suffixed {@code ~1}, {@code ~2}, as the engine names sessions started
 * again. Before, they were {@code c<pass>-<index>}: pass 1 of conversation 0 read "c1-0", like the dataset's "c1".
 */
class ShareGptSessionIdsTest {

    private final Tokenizer cl100k = Tokenizers.jtokkit("cl100k_base");

    private static String conversation(String idField, String word) {
        return "{" + idField + "\"conversations\":[{\"from\":\"human\",\"value\":\"Tell me about " + word + "\"},"
                + "{\"from\":\"gpt\",\"value\":\"Here is a short answer about " + word + ".\"},"
                + "{\"from\":\"human\",\"value\":\"And more about " + word + "?\"},"
                + "{\"from\":\"gpt\",\"value\":\"Some more words about " + word + ".\"}]}";
    }

    private List<String> sessionIds(Path file, int count) throws IOException {
        return List.copyOf(new LinkedHashSet<>(ShareGptDataset.load(file).sessions(cl100k, count, 1,
                ShareGptOptions.defaults()).requests().stream().map(r -> r.inputs().sessionId()).toList()));
    }

    @Test
    void theDatasetsIdsThenTheirPasses(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("sg.json"), "[" + conversation("\"id\":\"c1\",", "cats") + ","
                + conversation("\"id\":\"c2\",", "dogs") + "]");
        List<String> ids = sessionIds(file, 10); // 4 turns in the file: 10 requests are 5 sessions in 3 passes
        assertEquals(5, ids.size(), ids::toString);
        assertEquals(List.of("c1", "c2"), ids.subList(0, 2).stream().sorted().toList(), ids::toString);
        // each pass in the first pass's order
        assertEquals(List.of(ids.get(0) + "~1", ids.get(1) + "~1", ids.get(0) + "~2"), ids.subList(2, 5));
    }

    @Test
    void withoutAnIdOrWithOneMetBeforeTheIndexInTheFile(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("sg.jsonl"), conversation("", "cats") + "\n"
                + conversation("\"id\":\"x\",", "dogs") + "\n" + conversation("\"id\":\"x\",", "birds") + "\n"
                + conversation("\"id\":\"  \",", "fish") + "\n");
        // the second "x" is the third conversation: s2, whichever the seed plays first
        assertEquals(List.of("s0", "s2", "s3", "x"), sessionIds(file, 8).stream().sorted().toList());
    }
}
