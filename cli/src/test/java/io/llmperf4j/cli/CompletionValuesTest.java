package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** generate-completion's script offers the words of the options that take one of a fixed set. */
class CompletionValuesTest {

    @Test
    void theScriptOffersTheValuesOfFixedSetOptions() {
        CliRun run = CliRun.of(Map.of(), "generate-completion");
        assertEquals(0, run.exitCode(), run::toString);
        String script = run.out();
        for (String values : new String[] {"openai openai-completions anthropic embeddings", "text json",
            "preconnect on-demand per-request", "llmperf exact", "constant poisson gamma", "concurrency rate",
            "low high auto", "sim llama"}) {
            assertTrue(script.contains("(\"" + values.replace(" ", "\" \"") + "\")")
                    || script.contains("(" + values + ")"), values + " in:\n" + script);
        }
    }
}
