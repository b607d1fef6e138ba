package io.llmperf4j.tokenize.prompt;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/** Corpora for prompt tests, as Python's readlines() gives them. */
final class TestCorpora {
    private static final List<String> TRICKY = List.of(
            "Shall I compare thee to a summer's day?",
            "Thou art more lovely and more temperate:",
            "Rough winds do shake the darling buds of May,",
            "A llama \uD83E\uDD99 grazes where the \uD83E\uDD99\uD83E\uDD99 once stood;",
            "\u9547\u6C5F and \u00E9t\u00E9 and na\u00EFve caf\u00E9s,",
            "\tindented\t\twith tabs   and   runs of spaces",
            "numbers 1234567890 and 3.14159, 2,718",
            "antidisestablishmentarianism supercalifragilistic",
            "Ꙋ🦙 mixed scripts \u0414\u043E\u0431\u0440\u043E \u05E9\u05DC\u05D5\u05DD",
            "\"quoted\" (parenthesised) [bracketed] {braced} <angled>",
            "So long as men can breathe or eyes can see,",
            "So long lives this, and this gives life to thee.");

    private TestCorpora() {
    }

    /** 84 lines ending in "\n" except the last, like sonnet.txt; only the count matters for the random draws. */
    static List<String> numbered84() {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 84; i++) lines.add("line " + i + " of the corpus" + (i < 83 ? "\n" : ""));
        return lines;
    }

    /** 84 lines with non-ASCII text, byte-fallback emoji, tabs and long words. */
    static List<String> tricky84() {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 84; i++) lines.add(TRICKY.get(i % TRICKY.size()) + " " + i + (i < 83 ? "\n" : ""));
        return lines;
    }

    /** llmperf's sonnet.txt from the shared folder, or the test is skipped. */
    static List<String> sonnet() throws IOException {
        String shared = System.getProperty("shared.dir");
        Assumptions.assumeTrue(shared != null, "shared.dir not set");
        Path file = Path.of(shared, "corpus", "sonnet.txt");
        Assumptions.assumeTrue(Files.isRegularFile(file), "no " + file);
        return readlines(Files.readString(file, StandardCharsets.UTF_8));
    }

    static List<String> readlines(String text) {
        List<String> lines = new ArrayList<>();
        Matcher m = Pattern.compile("[^\n]*\n|[^\n]+$").matcher(text);
        while (m.find()) lines.add(m.group());
        return lines;
    }
}
