package io.llmperf4j.run;

import io.llmperf4j.engine.protocol.ErrorBodies;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.summary.Redaction;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Whether a finished run failed by its requests: every request failed, or more than {@code --max-error-rate}
 * percent did (cancellations at the end of a run count, as in the error rate). A failed run prints the server's most
 * frequent messages per failure kind, so a wrong key or model is read on the console instead of in the CSV.
 */
final class FailureGate {
    /** How many distinct messages are printed per failure kind. */
    static final int MESSAGES_PER_KIND = 3;
    private static final int MESSAGE_CHARS = 200;

    private final double maxErrorRatePercent;

    /** @param maxErrorRatePercent 0..100, or NaN for none (then only a run where every request failed fails) */
    FailureGate(double maxErrorRatePercent) {
        this.maxErrorRatePercent = maxErrorRatePercent;
    }

    /** The status of a completed run with these records: COMPLETED, or REQUESTS_FAILED after printing why to err. */
    RunStatus judge(List<RequestRecord> records, PrintStream err) {
        if (records.isEmpty()) return RunStatus.COMPLETED;
        long failed = records.stream().filter(r -> !r.succeeded()).count();
        double ratePercent = 100.0 * failed / records.size();
        String verdict;
        if (failed == records.size()) {
            verdict = "every request failed (" + failed + " of " + failed + ")";
        } else if (!Double.isNaN(maxErrorRatePercent) && ratePercent > maxErrorRatePercent) {
            verdict = String.format(Locale.ROOT, "%d of %d requests failed (%.1f%%, above --max-error-rate %s%%)",
                    failed, records.size(), ratePercent, plain(maxErrorRatePercent));
        } else {
            return RunStatus.COMPLETED;
        }
        err.println("llmperf4j: the run failed: " + verdict + "; the server said:");
        for (String line : topMessages(records)) {
            err.println("  " + line);
        }
        return RunStatus.REQUESTS_FAILED;
    }

    /** Per failure kind (most frequent first), its count and the {@value #MESSAGES_PER_KIND} most frequent messages. */
    static List<String> topMessages(List<RequestRecord> records) {
        Map<FailureKind, Map<String, Integer>> byKind = new EnumMap<>(FailureKind.class);
        for (RequestRecord record : records) {
            if (record.succeeded()) continue;
            Failure failure = record.failure();
            String message = failure.message().isBlank() ? "(no message)" : oneLine(serverMessage(failure.message()));
            String keyed = (failure.code() > 0 ? failure.code() + " " : "") + message;
            byKind.computeIfAbsent(failure.kind(), k -> new TreeMap<>()).merge(keyed, 1, Integer::sum);
        }
        List<Map.Entry<FailureKind, Map<String, Integer>>> kinds = new ArrayList<>(byKind.entrySet());
        kinds.sort(Comparator.comparingInt((Map.Entry<FailureKind, Map<String, Integer>> e) -> -total(e.getValue())));
        List<String> lines = new ArrayList<>();
        for (Map.Entry<FailureKind, Map<String, Integer>> kind : kinds) {
            lines.add(kind.getKey() + " x" + total(kind.getValue()) + ":");
            Map<String, Integer> ordered = new LinkedHashMap<>();
            kind.getValue().entrySet().stream()
                    .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                    .limit(MESSAGES_PER_KIND)
                    .forEach(e -> ordered.put(e.getKey(), e.getValue()));
            ordered.forEach((message, count) -> lines.add("  " + count + "x " + message));
        }
        return lines;
    }

    /** The server's message in an error body (see {@link ErrorBodies}), with anything key-shaped redacted. */
    static String serverMessage(String body) {
        return Redaction.secrets(ErrorBodies.serverMessage(body));
    }

    private static int total(Map<String, Integer> counts) {
        return counts.values().stream().mapToInt(Integer::intValue).sum();
    }

    private static String oneLine(String message) {
        String flat = message.replaceAll("\\s+", " ").strip();
        return flat.length() <= MESSAGE_CHARS ? flat : flat.substring(0, MESSAGE_CHARS) + "...";
    }

    private static String plain(double value) {
        return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value);
    }
}
