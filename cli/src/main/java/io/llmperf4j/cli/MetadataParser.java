package io.llmperf4j.cli;

import java.util.LinkedHashMap;
import java.util.Map;

/** Parses --metadata "k=v,k2=v2" with llmperf's rule: split on ",", then each item must hold exactly one "=". */
final class MetadataParser {
    private MetadataParser() {
    }

    static Map<String, String> parse(String text) {
        Map<String, String> metadata = new LinkedHashMap<>();
        if (text == null || text.isEmpty()) {
            return metadata;
        }
        for (String item : text.split(",", -1)) {
            String[] parts = item.split("=", -1);
            if (parts.length != 2) {
                throw new UsageException("--metadata item '" + item + "' must have the form key=value "
                        + "(items are separated by ',', each with exactly one '=')");
            }
            metadata.put(parts[0], parts[1]);
        }
        return metadata;
    }
}
