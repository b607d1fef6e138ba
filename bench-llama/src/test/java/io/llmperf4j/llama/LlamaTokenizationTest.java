package io.llmperf4j.llama;

import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.Tokenizers;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The generated model makes llama.cpp tokenize exactly as the Llama-2 tokenizer llmperf counts with. */
class LlamaTokenizationTest {

    @Test
    void helloWorldIsTheLlama2Ids() {
        LlamaEngine engine = TinyLlamaFixture.engine();
        assertArrayEquals(new int[] {15043, 3186}, engine.tokenize("Hello world"));
        assertEquals(3, engine.countPromptTokens("Hello world"), "BOS 1 is added to a prompt");
    }

    @Test
    void llamaCppAndTheHuggingFaceTokenizerAgreeOnEveryCorpusLine() throws IOException {
        Tokenizer huggingFace = Tokenizers.builtInLlama2();
        List<String> texts = new ArrayList<>(List.of(" grabbed", "\n", "\uD83E\uDD99", "日本語のテキスト",
                "Ünïcödé — “quotes” 123,456.78", "the JSON tokens stream\uD83E\uDD99 via HTTP servers"));
        Path sonnet = Path.of(System.getProperty("shared.dir", "../../shared"), "corpus", "sonnet.txt");
        if (Files.isRegularFile(sonnet)) {
            List<String> lines = Files.readAllLines(sonnet);
            texts.addAll(lines);
            texts.add(String.join("\n", lines));
        }
        for (String text : texts) {
            long[] withBos = huggingFace.encode(text);
            int[] expected = Arrays.stream(withBos).skip(1).mapToInt(id -> (int) id).toArray();
            assertArrayEquals(expected, TinyLlamaFixture.engine().tokenize(text), text);
        }
    }

    @Test
    void theModelsTextOfNTokensIsNTokensForTheClient() {
        Tokenizer huggingFace = Tokenizers.builtInLlama2();
        for (int tokens = 1; tokens <= 60; tokens++) {
            String text = TinyLlamaModel.generatedText(tokens);
            assertEquals(tokens - TinyLlamaModel.heldBackTokens(tokens) + 1, huggingFace.count(text),
                    tokens + " tokens: " + text);
        }
    }
}
