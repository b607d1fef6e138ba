package io.llmperf4j.datasets;

import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.prompt.PromptParams;
import io.llmperf4j.tokenize.prompt.PromptSynthesizer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * llmperf's synthetic prompts (corpus lines under an instruction prefix) as a {@link Workload}. Keep one instance
 * per corpus and tokenizer: the synthesizer measures every corpus line once.
 */
public final class SyntheticWorkload {
    private final Corpus corpus;
    private final PromptSynthesizer synthesizer;

    public SyntheticWorkload(Tokenizer tokenizer, Corpus corpus) {
        this.corpus = Objects.requireNonNull(corpus, "corpus");
        this.synthesizer = new PromptSynthesizer(Workload.requireEncoding(tokenizer), corpus.lines());
    }

    /** The requests {@code params} describe (see {@link PromptSynthesizer#synthesize}). */
    public Workload generate(PromptParams params) {
        List<RequestSpec> requests = synthesizer.synthesize(params);
        Map<String, Object> generation = new LinkedHashMap<>();
        generation.put("prompt_mode", params.mode().name().toLowerCase(Locale.ROOT));
        generation.put("input_lengths", params.inputLengths().parameters());
        generation.put("output_lengths", params.outputLengths().parameters());
        generation.put("request_count", params.requestCount());
        return new Workload(Workload.SYNTHETIC, corpus.id(), corpus.sha256(), synthesizer.tokenizer().id(),
                params.seed(), generation, requests);
    }

    public Corpus corpus() {
        return corpus;
    }

    public PromptSynthesizer synthesizer() {
        return synthesizer;
    }
}
