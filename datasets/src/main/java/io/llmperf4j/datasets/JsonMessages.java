package io.llmperf4j.datasets;

import com.fasterxml.jackson.core.JsonProcessingException;

/** Jackson's error messages without its internals, for one clean line naming the file and where. */
public final class JsonMessages {
    private JsonMessages() {
    }

    /**
     * The problem only: Jackson appends where the enclosing value started ({@code (start marker at [Source:
     * REDACTED ...; line: 1, column: 5])}) and can embed {@code [Source: ...]} elsewhere; the caller names the file
     * and line itself.
     */
    public static String clean(JsonProcessingException e) {
        String m = e.getOriginalMessage();
        if (m == null) return "malformed JSON";
        m = m.replaceAll("\\s*\\(start marker at \\[Source:[^\\]]*\\]\\)", "")
                .replaceAll("\\s*at \\[Source:[^\\]]*\\]", "")
                .replaceAll("\\[Source:[^\\]]*\\]", "");
        int newline = m.indexOf('\n');
        if (newline >= 0) m = m.substring(0, newline);
        return m.strip();
    }
}
