package io.llmperf4j.run;

import io.llmperf4j.model.RequestSpec;

import java.util.List;
import java.util.function.ToIntFunction;

/**
 * The run's token shape as llmperf echoes it in its summary and file names ({@code <model>_<mean in>_<mean out>}):
 * the flags' when the prompts are drawn from them, llmperf's way; otherwise (a scenario, a fixed prompt, a dataset, a
 * manifest, --input/--output-lengths, a prefix) what is sent.
 */
record TokenShape(int meanInputTokens, int stddevInputTokens, int meanOutputTokens, int stddevOutputTokens) {

    static TokenShape of(WorkloadSpec w, WorkloadSource workload) {
        boolean fromFlags = (workload.promptMode().equals("llmperf") || workload.promptMode().equals("exact"))
                && w.inputLengths() == null && w.outputLengths() == null && w.workload() == null
                && w.prefixTokens() == null;
        if (fromFlags) {
            return new TokenShape(w.meanInputTokens(), w.stddevInputTokens(), w.meanOutputTokens(),
                    w.stddevOutputTokens());
        }
        List<RequestSpec> sent = workload.requests();
        return new TokenShape(mean(sent, RequestSpec::numberInputTokens), stddev(sent, RequestSpec::numberInputTokens),
                mean(sent, RequestSpec::maxTokens), stddev(sent, RequestSpec::maxTokens));
    }

    private static int mean(List<RequestSpec> sent, ToIntFunction<RequestSpec> value) {
        return (int) Math.round(sent.stream().mapToInt(value).average().orElse(0));
    }

    private static int stddev(List<RequestSpec> sent, ToIntFunction<RequestSpec> value) {
        double mean = sent.stream().mapToInt(value).average().orElse(0);
        double variance = sent.stream().mapToDouble(r -> Math.pow(value.applyAsInt(r) - mean, 2)).average().orElse(0);
        return (int) Math.round(Math.sqrt(variance));
    }
}
