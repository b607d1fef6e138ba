package io.llmperf4j.tokenize;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The built-in tokenizer for tests; they are skipped only when this build could not derive it (no npm). */
public final class Llama2Fixture {
    private Llama2Fixture() {
    }

    public static Tokenizer llama2() {
        assumeTrue(Tokenizers.builtInLlama2Available(), "built-in Llama-2 tokenizer not derived in this build (no npm)");
        return Tokenizers.builtInLlama2();
    }
}
