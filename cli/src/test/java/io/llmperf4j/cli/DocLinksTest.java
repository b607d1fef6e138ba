package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every relative link of README.md, BENCHMARKS.md, bench-report/METRICS.md and docs/*.md leads somewhere: the file
 * exists, and its #anchor is a heading of the target by GitHub's rules (lowercase, punctuation dropped, spaces to
 * '-', a repeated heading numbered -1, -2) or an explicit {@code <a id>}/{@code <a name>} (QA: docs/load.md pointed
 * at headings renamed since). Reads files only: no network, no run.
 */
class DocLinksTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");
    private static final Pattern CODE_SPAN = Pattern.compile("`+[^`]*`+");
    /** An inline link or image, {@code [text](target "title")}; a target in angle brackets may hold spaces. */
    private static final Pattern LINK = Pattern.compile("]\\((<[^>]*>|[^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    /** A reference definition, {@code [label]: target}. */
    private static final Pattern REFERENCE = Pattern.compile("^\\s{0,3}\\[[^]]+]:\\s*(\\S+)");

    @Test
    void everyRelativeLinkAndAnchorOfTheDocsResolves() throws IOException {
        List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("BENCHMARKS.md"),
                ROOT.resolve("bench-report/METRICS.md")));
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path doc : docs) {
            List<String> lines = Files.readAllLines(doc);
            boolean fenced = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (FENCE.matcher(line).find()) {
                    fenced = !fenced;
                    continue;
                }
                if (fenced) continue;
                List<String> targets = new ArrayList<>();
                String prose = CODE_SPAN.matcher(line).replaceAll("");
                Matcher link = LINK.matcher(prose);
                while (link.find()) targets.add(link.group(1).replaceAll("^<|>$", ""));
                Matcher reference = REFERENCE.matcher(prose);
                if (reference.find()) targets.add(reference.group(1));
                for (String target : targets) {
                    if (target.matches("^[a-zA-Z][a-zA-Z+.-]*:.*")) continue; // https:, mailto: : not this test's
                    links++;
                    String problem = problem(doc, target);
                    if (problem != null) broken.add(ROOT.relativize(doc) + ":" + (i + 1) + ": " + target + ": " + problem);
                }
            }
        }
        assertTrue(links > 50, "the docs' relative links were read: " + links);
        assertEquals(List.of(), broken, "broken links");
    }

    @Test
    void anchorsFollowGitHubsRules() {
        assertEquals(List.of("iterations-failures-and-what-the--interval-covers", "exit-codes", "exit-codes-1",
                "--max-error-rate-and-scripts"), List.copyOf(anchors(List.of(
                "### Iterations: failures, and what the ± interval covers", "## Exit codes", "## Exit codes",
                "## `--max-error-rate` and scripts"))));
    }

    /** Why {@code target}, linked from {@code doc}, leads nowhere; null when it resolves. */
    private static String problem(Path doc, String target) throws IOException {
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path dest = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
        if (!Files.exists(dest)) return "no such file";
        if (anchor == null || anchor.isEmpty() || !dest.toString().endsWith(".md")) return null;
        return anchors(Files.readAllLines(dest)).contains(anchor) ? null : "no such heading or anchor in "
                + ROOT.relativize(dest);
    }

    /** The anchors of a Markdown file's lines: its headings' (outside code fences) and its explicit ones. */
    static Set<String> anchors(List<String> lines) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : lines) {
            if (FENCE.matcher(line).find()) {
                fenced = !fenced;
                continue;
            }
            if (fenced) continue;
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = slug(heading.group(1));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? slug : slug + "-" + n);
            }
            Matcher html = HTML_ANCHOR.matcher(line);
            while (html.find()) anchors.add(html.group(1));
        }
        return anchors;
    }

    /** GitHub's: a link's text kept, lowercase, all but letters, digits, '_', '-' and spaces dropped, spaces to '-'. */
    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^]]*)]\\([^)]*\\)", "$1").toLowerCase(Locale.ROOT);
        return text.replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
    }
}
