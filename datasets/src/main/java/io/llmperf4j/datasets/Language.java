package io.llmperf4j.datasets;

import java.util.Locale;

/** The language of a {@link Scenario}'s prompt. */
public enum Language {
    EN("en"),
    ZH("zh");

    private final String code;

    Language(String code) {
        this.code = code;
    }

    /** The ISO 639-1 code: {@code en}, {@code zh}. */
    public String code() {
        return code;
    }

    /**
     * @throws IllegalArgumentException for anything but {@code en} or {@code zh} (any case)
     */
    public static Language parse(String code) {
        String value = code == null ? "" : code.strip().toLowerCase(Locale.ROOT);
        for (Language language : values()) {
            if (language.code.equals(value)) return language;
        }
        throw new IllegalArgumentException("Unknown language '" + code + "'; use en or zh");
    }
}
