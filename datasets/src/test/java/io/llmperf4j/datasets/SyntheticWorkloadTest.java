package io.llmperf4j.datasets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.ServerUsageCounting;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.Tokenizers;
import io.llmperf4j.tokenize.prompt.PromptMode;
import io.llmperf4j.tokenize.prompt.PromptParams;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SyntheticWorkloadTest {

    @Test
    void llmperfDefaultsKeepTheGoldenLengthsAndRecordTheirSource() {
        assumeTrue(Tokenizers.builtInLlama2Available());
        Tokenizer llama = Tokenizers.builtInLlama2();
        Workload workload = new SyntheticWorkload(llama, Corpus.defaultCorpus())
                .generate(PromptParams.llmperfDefaults(PromptMode.LLMPERF));
        // llmperf's (max_tokens, number_input_tokens) for its defaults: the same for any 84-line corpus
        assertEquals(List.of(List.of(167, 538), List.of(92, 581), List.of(231, 601), List.of(173, 531), List.of(64, 483),
                        List.of(32, 509), List.of(56, 472), List.of(98, 967), List.of(101, 568), List.of(155, 639)),
                workload.requests().stream().map(r -> List.of(r.maxTokens(), r.numberInputTokens())).toList());
        assertEquals(Workload.SYNTHETIC, workload.kind());
        assertEquals("llmperf4j-verse-v1", workload.sourceId());
        assertEquals(Corpus.defaultCorpus().sha256(), workload.sourceSha256());
        assertEquals("llama-2 (built in)", workload.tokenizerId());
        assertEquals(11111, workload.seed());
        assertEquals(Map.of("prompt_mode", "llmperf",
                "input_lengths", Map.of("distribution", "normal", "mean", 550, "stddev", 150),
                "output_lengths", Map.of("distribution", "normal", "mean", 150, "stddev", 80),
                "request_count", 10), workload.generation());
        assertEquals(List.of("prompt_mode", "input_lengths", "output_lengths", "request_count"),
                List.copyOf(workload.generation().keySet()));
    }

    @Test
    void exactModeCountsAreReal() {
        Tokenizer o200k = Tokenizers.jtokkit("o200k_base");
        Workload workload = new SyntheticWorkload(o200k, Corpus.defaultCorpus())
                .generate(PromptParams.llmperfDefaults(PromptMode.EXACT).withRequestCount(100));
        for (RequestSpec request : workload.requests()) assertEquals(o200k.count(request.prompt()), request.numberInputTokens());
    }

    @Test
    void needsATokenizerThatCounts() {
        assertThrows(IllegalArgumentException.class,
                () -> new SyntheticWorkload(ServerUsageCounting.INSTANCE, Corpus.defaultCorpus()));
    }
}
