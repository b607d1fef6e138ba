package io.llmperf4j.run;

import io.llmperf4j.datasets.images.ImageOptions;

import java.nio.file.Path;

/**
 * Where a run's prompts come from and what counts their tokens, as given (checked and built by
 * {@link WorkloadSource}): llmperf's token distribution, or a replayed manifest, a dataset, a fixed prompt or a
 * scenario, with an optional shared prefix. Null means "not given" for every optional field.
 *
 * @param meanInputTokens      llmperf's --mean-input-tokens
 * @param stddevInputTokens    llmperf's --stddev-input-tokens
 * @param meanOutputTokens     llmperf's --mean-output-tokens
 * @param stddevOutputTokens   llmperf's --stddev-output-tokens
 * @param tokenizer            'llama-2', a tokenizer.json, a HuggingFace id, a jtokkit encoding, or 'server'
 * @param allowDownload        let a HuggingFace id be fetched when not cached
 * @param promptMode           'llmperf' or 'exact'
 * @param corpus               text whose lines fill the prompts, or null for the built-in corpus
 * @param seed                 the workload seed (llmperf's 11111)
 * @param inputLengths         a prompt length distribution replacing the mean and deviation
 * @param outputLengths        a max_tokens distribution replacing the mean and deviation
 * @param dataset              KIND:FILE
 * @param datasetPromptTokens  MIN,MAX filter of a ShareGPT dataset
 * @param datasetOutputTokens  MIN,MAX filter of a ShareGPT dataset
 * @param prompt               one fixed prompt for every request
 * @param maxTokens            max_tokens of the fixed prompt
 * @param scenario             t1..t4
 * @param scenarioLang         en or zh
 * @param prefixTokens         a shared prefix of this many tokens
 * @param saveWorkload         write the workload as a manifest here
 * @param workload             replay this manifest
 * @param sessions             multi-turn sessions, shared-prefix groups and trace replay ({@link SessionSpec#NONE}
 *                             for none)
 * @param images               images to attach to every request, and how to send a dataset's images; null for
 *                             none (docs/images.md)
 */
public record WorkloadSpec(int meanInputTokens, int stddevInputTokens, int meanOutputTokens, int stddevOutputTokens,
                           String tokenizer, boolean allowDownload, String promptMode, Path corpus, long seed,
                           String inputLengths, String outputLengths, String dataset, String datasetPromptTokens,
                           String datasetOutputTokens, String prompt, Integer maxTokens, String scenario,
                           String scenarioLang, Integer prefixTokens, Path saveWorkload, Path workload,
                           SessionSpec sessions, ImageOptions images) {

    public WorkloadSpec {
        sessions = sessions == null ? SessionSpec.NONE : sessions;
    }

    /** Without images. */
    public WorkloadSpec(int meanInputTokens, int stddevInputTokens, int meanOutputTokens, int stddevOutputTokens,
                        String tokenizer, boolean allowDownload, String promptMode, Path corpus, long seed,
                        String inputLengths, String outputLengths, String dataset, String datasetPromptTokens,
                        String datasetOutputTokens, String prompt, Integer maxTokens, String scenario,
                        String scenarioLang, Integer prefixTokens, Path saveWorkload, Path workload,
                        SessionSpec sessions) {
        this(meanInputTokens, stddevInputTokens, meanOutputTokens, stddevOutputTokens, tokenizer, allowDownload,
                promptMode, corpus, seed, inputLengths, outputLengths, dataset, datasetPromptTokens,
                datasetOutputTokens, prompt, maxTokens, scenario, scenarioLang, prefixTokens, saveWorkload, workload,
                sessions, null);
    }

    /** Without sessions, shared-prefix groups, a trace or images. */
    public WorkloadSpec(int meanInputTokens, int stddevInputTokens, int meanOutputTokens, int stddevOutputTokens,
                        String tokenizer, boolean allowDownload, String promptMode, Path corpus, long seed,
                        String inputLengths, String outputLengths, String dataset, String datasetPromptTokens,
                        String datasetOutputTokens, String prompt, Integer maxTokens, String scenario,
                        String scenarioLang, Integer prefixTokens, Path saveWorkload, Path workload) {
        this(meanInputTokens, stddevInputTokens, meanOutputTokens, stddevOutputTokens, tokenizer, allowDownload,
                promptMode, corpus, seed, inputLengths, outputLengths, dataset, datasetPromptTokens,
                datasetOutputTokens, prompt, maxTokens, scenario, scenarioLang, prefixTokens, saveWorkload, workload,
                SessionSpec.NONE, null);
    }

    /** The same workload with images ({@code null}: none). */
    public WorkloadSpec withImages(ImageOptions options) {
        return new WorkloadSpec(meanInputTokens, stddevInputTokens, meanOutputTokens, stddevOutputTokens, tokenizer,
                allowDownload, promptMode, corpus, seed, inputLengths, outputLengths, dataset, datasetPromptTokens,
                datasetOutputTokens, prompt, maxTokens, scenario, scenarioLang, prefixTokens, saveWorkload, workload,
                sessions, options);
    }

    /** OpenAI's {@code image_url.detail} for every image part (--image-detail), or null to send none. */
    public String imageDetail() {
        return images == null ? null : images.detail();
    }

    /**
     * Refuses --image-detail before anything is sent where the API has no such field (every API but OpenAI's chat
     * completions): the flag would do nothing there.
     */
    void checkImageDetailFits(String llmApi) {
        if (imageDetail() != null && !llmApi.equals("openai")) {
            throw new InvalidRequestException("--image-detail is a field of OpenAI's image_url part: --llm-api "
                    + llmApi + " has none (use --llm-api openai)");
        }
    }

    /** llmperf's defaults: 550 ± 150 input tokens, 150 ± 80 output tokens, llama-2, seed 11111. */
    public static WorkloadSpec llmperfDefaults() {
        return new WorkloadSpec(550, 150, 150, 80, "llama-2", false, "llmperf", null, 11111, null, null, null, null,
                null, null, null, null, "en", null, null, null);
    }
}
