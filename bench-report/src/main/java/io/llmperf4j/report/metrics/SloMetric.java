package io.llmperf4j.report.metrics;

import java.util.Locale;
import java.util.Optional;

/** A latency an objective can bound: the per-request TTFT, TPOT and E2E, and the per-gap ITL. */
public enum SloMetric {
    TTFT, TPOT, ITL, E2E;

    /** "ttft", as written in {@code --slo}. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** "TTFT". */
    public String label() {
        return name();
    }

    /** The metric named {@code text} (case-insensitive; {@code e2el} is E2E, vLLM's name). */
    public static Optional<SloMetric> named(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "ttft" -> Optional.of(TTFT);
            case "tpot" -> Optional.of(TPOT);
            case "itl" -> Optional.of(ITL);
            case "e2e", "e2el" -> Optional.of(E2E);
            default -> Optional.empty();
        };
    }
}
