package io.llmperf4j.datasets;

import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.prompt.PythonRandom;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * llmperf's correctness workload ({@code llm_correctness.py}): per request a number {@code n =
 * random.randint(0, 10000)}, written out in words by num2words, and the prompt
 * {@code "Convert the following sequence of words into a number: {words}.\nPrint the number first."}.
 *
 * <p>llmperf never seeds that {@code random}, so its numbers differ on every run; here CPython's generator is seeded,
 * so the same seed gives the same numbers (and the same numbers llmperf would draw after {@code random.seed(seed)}).
 */
public final class CorrectnessPrompts {
    /** llmperf's MAX_RANDOM_NUMBER: numbers are drawn from 0..10000, both ends included. */
    public static final int MAX_RANDOM_NUMBER = 10_000;

    private CorrectnessPrompts() {
    }

    /** One request of the workload: the number, its words, the prompt text. */
    public record Item(int index, int number, String words, String prompt) {
        public Item {
            Objects.requireNonNull(words, "words");
            Objects.requireNonNull(prompt, "prompt");
        }

        /** The request: llmperf passes the prompt length as 0 and sends no {@code max_tokens}. */
        public RequestSpec toRequestSpec() {
            return new RequestSpec(index, prompt, 0, RequestSpec.NO_MAX_TOKENS);
        }
    }

    /** llmperf's prompt for {@code words}. */
    public static String prompt(String words) {
        return "Convert the following sequence of words into a number: " + words + ".\nPrint the number first.";
    }

    /** {@code count} items, the k-th from the k-th {@code randint(0, 10000)} after {@code random.seed(seed)}. */
    public static List<Item> generate(long seed, int count) {
        if (count < 1) throw new IllegalArgumentException("count (" + count + ") must be >= 1");
        PythonRandom random = new PythonRandom(seed);
        List<Item> items = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int number = random.randbelow(MAX_RANDOM_NUMBER + 1); // randint(a, b) = a + _randbelow(b - a + 1)
            String words = NumberWords.toWords(number);
            items.add(new Item(i, number, words, prompt(words)));
        }
        return List.copyOf(items);
    }
}
