package io.llmperf4j.datasets;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * A {@code --dataset} value: {@code sharegpt:FILE} ({@link ShareGptDataset}) or {@code prompts:FILE} (also
 * {@code jsonl:FILE}; {@link PromptListDataset}).
 *
 * @param kind {@link Workload#SHAREGPT} or {@link Workload#PROMPTS}
 * @param file the file as given
 */
public record DatasetSpec(String kind, Path file) {
    public static final String FORMS = "sharegpt:FILE (ShareGPT conversations, a JSON array or JSON Lines) or "
            + "prompts:FILE (JSON Lines of {\"prompt\": ..., \"max_tokens\": ...}; jsonl:FILE also works)";

    public DatasetSpec {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(file, "file");
    }

    /**
     * @throws IllegalArgumentException quoting the value and listing {@link #FORMS}
     */
    public static DatasetSpec parse(String spec) {
        String value = spec == null ? "" : spec.strip();
        int colon = value.indexOf(':');
        String kind = colon < 0 ? "" : value.substring(0, colon).toLowerCase(Locale.ROOT);
        String path = colon < 0 ? "" : value.substring(colon + 1);
        if (!path.isBlank()) {
            switch (kind) {
                case "sharegpt":
                    return new DatasetSpec(Workload.SHAREGPT, Path.of(path));
                case "prompts":
                case "jsonl":
                    return new DatasetSpec(Workload.PROMPTS, Path.of(path));
                default:
                    break;
            }
        }
        throw new IllegalArgumentException("Unknown dataset '" + spec + "'; use " + FORMS);
    }
}
