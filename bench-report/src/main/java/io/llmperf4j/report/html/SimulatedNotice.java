package io.llmperf4j.report.html;

import io.llmperf4j.report.output.JmhFile;
import io.llmperf4j.report.summary.SummaryDocument;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The header line of a page whose figures came from llmperf4j's embedded simulated server, not a real endpoint: the
 * model's name may be a real one's, so every page says whose figures these are (a run's, a sweep's, a search's, a
 * comparison's, a page of iterations). Known from the summaries' {@code settings.simulated} (or, for iterations,
 * which keep no summary, the {@code simulated} param of {@code <base>_jmh.json}); files from before it was recorded
 * say nothing, so the page says nothing either.
 */
public final class SimulatedNotice {

    /** The line, in the console's closing line's words. */
    public static final String LINE = "Simulated: these figures are llmperf4j's embedded simulated server's, "
            + "not a real endpoint's.";

    /** Its style, for a page that does not carry {@link HtmlPage#CSS}. */
    public static final String CSS = ".simulated{color:#b35900;margin:0 0 8px}";

    private SimulatedNotice() {
    }

    /** Whether a summary says its run was against the simulator; false when it does not say (or is null). */
    public static boolean simulated(SummaryDocument summary) {
        return summary != null && summary.settings() != null && Boolean.TRUE.equals(summary.settings().simulated());
    }

    /** Whether any of the summaries says so (the levels of one sweep or search share their endpoint). */
    public static boolean anySimulated(Collection<SummaryDocument> summaries) {
        return summaries.stream().anyMatch(SimulatedNotice::simulated);
    }

    /** Whether {@code <base>_jmh.json} in {@code dir} records a simulator run; false when absent or not recorded. */
    public static boolean simulatedIterations(Path dir, String base) {
        Path file = dir.resolve(base + JmhFile.SUFFIX);
        if (!Files.isRegularFile(file)) return false;
        try {
            return JmhFile.read(file).stream().anyMatch(e -> "true".equals(e.params().get("simulated")));
        } catch (IOException | RuntimeException e) {
            return false; // an unreadable file: not known, no line
        }
    }

    /** The header's paragraph when {@code simulated}, else nothing. */
    public static String paragraph(boolean simulated) {
        return simulated ? paragraphOf(LINE) : "";
    }

    /**
     * The header's paragraph of a page of several named runs (a comparison of models): {@link #LINE} when every one
     * that says was simulated, which ones when only some were, nothing when none says so.
     *
     * @param simulatedByName each run's name and whether its summary says it was simulated (null: not recorded)
     */
    public static String paragraph(Map<String, Boolean> simulatedByName) {
        List<String> simulated = new ArrayList<>();
        boolean anyReal = false;
        for (Map.Entry<String, Boolean> e : simulatedByName.entrySet()) {
            if (Boolean.TRUE.equals(e.getValue())) simulated.add(e.getKey());
            else if (Boolean.FALSE.equals(e.getValue())) anyReal = true;
        }
        if (simulated.isEmpty()) return "";
        if (!anyReal) return paragraphOf(LINE);
        return paragraphOf("Simulated: " + Html.esc(String.join(", ", simulated)) + (simulated.size() == 1 ? "'s" : "'")
                + " figures are llmperf4j's embedded simulated server's, not a real endpoint's; the others' are a "
                + "real endpoint's.");
    }

    /** Each name's summary's {@code simulated} (null when not recorded), first summary of a name winning. */
    static Map<String, Boolean> byName(List<? extends Map.Entry<String, SummaryDocument>> named) {
        Map<String, Boolean> out = new LinkedHashMap<>();
        for (Map.Entry<String, SummaryDocument> e : named) {
            SummaryDocument s = e.getValue();
            Boolean value = s == null || s.settings() == null ? null : s.settings().simulated();
            if (value != null) out.putIfAbsent(e.getKey(), value);
        }
        return out;
    }

    /** {@code html}: the line's words (no markup; an apostrophe is text, as on the run's page), names escaped. */
    private static String paragraphOf(String html) {
        return "<p class=\"simulated\" role=\"note\"><strong>" + html + "</strong></p>\n";
    }
}
