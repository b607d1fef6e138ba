package io.llmperf4j.report.correctness;

import io.llmperf4j.model.PrintableText;
import io.llmperf4j.report.llmperf.LlmperfFileNames;
import io.llmperf4j.report.llmperf.LlmperfSummaryDocument;
import io.llmperf4j.report.python.PythonRepr;
import io.llmperf4j.report.summary.Redaction;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The outcome of a correctness run, as llmperf's {@code llm_correctness.py} reports it: the lines it prints and the
 * contents of its two files. Results are kept in completion order.
 *
 * <p>Both rates divide by ALL completed requests, errored ones included, as llmperf does. With none completed
 * llmperf raises ZeroDivisionError; here both rates are then {@code 0.0}.
 */
public final class CorrectnessReport {
    private final CorrectnessSettings settings;
    private final List<CorrectnessResult> results;
    private final int numberErrors;
    private final int numMismatched;

    public CorrectnessReport(CorrectnessSettings settings, List<CorrectnessResult> results) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.results = List.copyOf(results);
        int errors = 0;
        int mismatched = 0;
        for (CorrectnessResult result : this.results) {
            switch (result.outcome()) {
                case ERRORED -> errors++;
                case MISMATCHED -> mismatched++;
                case PASSED -> { }
            }
        }
        this.numberErrors = errors;
        this.numMismatched = mismatched;
    }

    public CorrectnessSettings settings() {
        return settings;
    }

    public List<CorrectnessResult> results() {
        return results;
    }

    public int numberErrors() {
        return numberErrors;
    }

    public int numMismatchedRequests() {
        return numMismatched;
    }

    /** Every recorded request, errored or not (llmperf's {@code num_completed_requests}). */
    public int numCompletedRequests() {
        return results.size();
    }

    public int numNonErroredRequests() {
        return results.size() - numberErrors;
    }

    public int numPassed() {
        return numNonErroredRequests() - numMismatched;
    }

    public double errorRate() {
        return rate(numberErrors);
    }

    public double mismatchRate() {
        return rate(numMismatched);
    }

    private double rate(int count) {
        return results.isEmpty() ? 0.0 : (double) count / results.size();
    }

    /**
     * What llmperf prints after the run: {@code Mismatched and errored requests.}, one line per mismatched or
     * errored request in completion order, then an empty line. Every line ends with "\n".
     */
    public String renderDetails() {
        StringBuilder out = new StringBuilder(256);
        out.append("Mismatched and errored requests.\n");
        for (CorrectnessResult result : results) {
            switch (result.outcome()) {
                // the server's text: llmperf's reading (each "\n" a space), then the console's rule for the rest
                // (an ESC, a NUL or a CR must not reach the terminal raw)
                case MISMATCHED -> out.append("    mismatched request: ")
                        .append(PrintableText.of(CorrectnessCheck.mismatchDisplayText(result.record().generatedText())))
                        .append(", expected: ").append(result.expectedNumber()).append('\n');
                case ERRORED -> out.append("    The request errored: ").append(result.record().failure().code())
                        .append(", ").append(PrintableText.of(result.record().failure().message())) // one line
                        .append(" \n");
                case PASSED -> { }
            }
        }
        out.append('\n');
        return out.toString();
    }

    /** llmperf's result block, five lines, rates as Python prints floats. */
    public String renderResults() {
        return "Results for llm correctness test for " + settings.model() + " queried with the " + settings.llmApi()
                + " api.\n"
                + "Errors: " + numberErrors + ", Error rate: " + PythonRepr.ofFloat(errorRate()) + "\n"
                + "Mismatched: " + numMismatched + ", Mismatch rate: " + PythonRepr.ofFloat(mismatchRate()) + "\n"
                + "Completed: " + numCompletedRequests() + "\n"
                + "Completed without errors: " + numNonErroredRequests() + "\n";
    }

    /**
     * The summary file's keys and values, in llmperf's order: {@code version}, {@code name}, the counts and rates,
     * {@code model}, {@code num_concurrent_requests}, {@code additional_sampling_params_*} (flattened; none for
     * {@code {}}), {@code llm_api}, the user metadata (which may overwrite any key in place), {@code timestamp}.
     */
    public Map<String, Object> summaryJson(long timestampEpochS) {
        Map<String, Object> metrics = new LinkedHashMap<>();
        metrics.put("number_errors", (long) numberErrors);
        metrics.put("num_mismatched_requests", (long) numMismatched);
        metrics.put("error_rate", errorRate());
        metrics.put("mismatch_rate", mismatchRate());
        metrics.put("num_completed_requests", (long) numCompletedRequests());
        metrics.put("num_non_errored_requests", (long) numNonErroredRequests());
        metrics.put("model", settings.model());
        metrics.put("num_concurrent_requests", (long) settings.numConcurrentRequests());
        metrics.put("additional_sampling_params", Redaction.jsonValue(settings.additionalSamplingParams()));
        metrics.put("llm_api", settings.llmApi());
        metrics.putAll(Redaction.metadata(settings.metadata()));
        metrics.put("timestamp", timestampEpochS);

        Map<String, Object> document = new LinkedHashMap<>();
        document.put("version", LlmperfSummaryDocument.VERSION);
        document.put("name", baseName(settings.model()) + "_summary");
        document.putAll(metrics);
        return LlmperfSummaryDocument.flattenDict(document);
    }

    /**
     * The individual-responses file: per request in completion order {@code {"metrics": <the actor's raw dict>,
     * "generated_text": ..., "request_config": {"model", "prompt": [text, 0], "sampling_params", "llm_api",
     * "metadata": {"rnd_number": n}}}}.
     */
    public List<Map<String, Object>> individualResponsesJson() {
        Map<String, Object> samplingParams = settings.samplingParams();
        List<Map<String, Object>> entries = new ArrayList<>(results.size());
        for (CorrectnessResult result : results) {
            Map<String, Object> requestConfig = new LinkedHashMap<>();
            requestConfig.put("model", settings.model());
            requestConfig.put("prompt", List.of(result.prompt(), (long) result.record().numberInputTokens()));
            requestConfig.put("sampling_params", samplingParams);
            requestConfig.put("llm_api", settings.llmApi());
            requestConfig.put("metadata", Map.of("rnd_number", result.expectedNumber()));

            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("metrics", CorrectnessRawMetrics.of(result.record()));
            entry.put("generated_text", result.record().generatedText());
            entry.put("request_config", requestConfig);
            entries.add(entry);
        }
        return entries;
    }

    /** llmperf's file-name base: {@code "{model}_correctness"} sanitised as every llmperf file name is. */
    public static String baseName(String model) {
        return LlmperfFileNames.sanitize(model + "_correctness");
    }
}
