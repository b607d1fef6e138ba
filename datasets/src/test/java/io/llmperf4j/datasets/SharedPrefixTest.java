package io.llmperf4j.datasets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.Tokenizers;
import io.llmperf4j.tokenize.prompt.PromptMode;
import io.llmperf4j.tokenize.prompt.PromptParams;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SharedPrefixTest {

    @Test
    void encodesToExactlyTheAskedTokensWithLlama2() {
        Tokenizer llama = llama2();
        for (int tokens : new int[] {2, 3, 10, 64, 500, 2000}) {
            assertEquals(tokens, llama.count(SharedPrefix.text(llama, tokens)), tokens + " tokens");
        }
        String prefix = SharedPrefix.text(llama, 64);
        assertTrue(prefix.startsWith("Never our traveler follows that fading memory toward that valley;\n"), prefix);
        assertTrue(prefix.endsWith("\nSome compass answers that distant summer"), prefix);
        assertEquals("fdb60565eb4120398853854797c8b1833611f20194c08df7c9e8138dc6ffc1f1",
                Hashing.sha256Hex(prefix.getBytes(StandardCharsets.UTF_8)), "depends only on the tokenizer and N");
    }

    @Test
    void encodesToExactlyTheAskedTokensWithOpenAiEncodings() {
        for (String name : new String[] {"cl100k_base", "o200k_base"}) {
            Tokenizer tokenizer = Tokenizers.jtokkit(name);
            for (int tokens : new int[] {1, 7, 64, 1000}) {
                assertEquals(tokens, tokenizer.count(SharedPrefix.text(tokenizer, tokens)), name + " " + tokens);
            }
        }
        assertEquals("a shared prefix needs more than 1 tokens with llama-2 (built in) (its special tokens alone), not 1",
                assertThrows(IllegalArgumentException.class, () -> SharedPrefix.text(llama2(), 1)).getMessage());
    }

    @Test
    void isPrependedToEveryPromptAndCounted() {
        Tokenizer llama = llama2();
        SyntheticWorkload synthetic = new SyntheticWorkload(llama, Corpus.defaultCorpus());
        Workload plain = synthetic.generate(PromptParams.llmperfDefaults(PromptMode.EXACT).withRequestCount(20));
        Workload shared = SharedPrefix.prepend(plain, llama, 256);
        String prefix = SharedPrefix.text(llama, 256);
        long[] prefixIds = llama.encode(prefix);
        for (int i = 0; i < 20; i++) {
            RequestSpec before = plain.requests().get(i);
            RequestSpec after = shared.requests().get(i);
            assertEquals(prefix + SharedPrefix.SEPARATOR + before.prompt(), after.prompt());
            assertEquals(llama.count(after.prompt()), after.numberInputTokens());
            // the prefix's 256 tokens (BOS included) are the first tokens of every prompt
            assertArrayEquals(prefixIds, Arrays.copyOf(llama.encode(after.prompt()), 256));
            assertEquals(before.maxTokens(), after.maxTokens());
        }
        // "\n\n" is two tokens, and the prompt loses its BOS
        assertEquals(plain.requests().get(0).numberInputTokens() + 256 + 2 - 1, shared.requests().get(0).numberInputTokens());
        assertEquals(256, shared.generation().get("shared_prefix_tokens"));
        assertEquals(Hashing.sha256Hex(prefix.getBytes(StandardCharsets.UTF_8)), shared.generation().get("shared_prefix_sha256"));
        assertSame(plain, SharedPrefix.prepend(plain, llama, 0));
        assertThrows(IllegalArgumentException.class, () -> SharedPrefix.prepend(plain, Tokenizers.jtokkit("cl100k_base"), 8));
    }

    private static Tokenizer llama2() {
        assumeTrue(Tokenizers.builtInLlama2Available(), "built-in Llama-2 tokenizer not derived in this build");
        return Tokenizers.builtInLlama2();
    }
}
