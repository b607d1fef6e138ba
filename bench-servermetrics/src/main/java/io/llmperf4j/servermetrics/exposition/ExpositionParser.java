package io.llmperf4j.servermetrics.exposition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Parses a {@code /metrics} body, strictly, into an {@link Exposition}; one parser per body (not thread-safe, not
 * reusable). A body that breaks the format throws {@link MalformedExpositionException} with the line number and
 * the reason; nothing is skipped silently except what the format itself says to skip (0.0.4 comments, OpenMetrics
 * exemplars).
 *
 * <p>Grammar, 0.0.4 (prometheus/docs {@code exposition_formats.md}): lines end in {@code \n}; blank lines and
 * {@code #} comments other than {@code # HELP name text} / {@code # TYPE name type} are ignored; a sample is
 * {@code name[{label="value",…}] value [timestamp_ms]} with blanks or tabs between tokens and an optional trailing
 * comma in the label set. OpenMetrics 1.0: the same sample form with single spaces, no blank lines, only
 * {@code # HELP}/{@code # TYPE}/{@code # UNIT} comments, timestamps in seconds, an optional exemplar
 * ({@code … # {labels} value [ts]}, skipped) and a final {@code # EOF}. In both, a family's {@code TYPE} comes before
 * its first sample and a family's lines are together.
 */
public final class ExpositionParser {

    private static final Pattern INTEGER = Pattern.compile("-?\\d+");
    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

    private final ExpositionFormat format;
    private final boolean openMetrics;
    private final Map<String, FamilyBuilder> familiesByName = new HashMap<>();
    private final List<FamilyBuilder> families = new ArrayList<>();
    private FamilyBuilder current;
    private boolean eofSeen;

    private ExpositionParser(ExpositionFormat format) {
        this.format = format;
        this.openMetrics = format == ExpositionFormat.OPENMETRICS_1_0;
    }

    /** Parses {@code text} in the format it appears to be in ({@link ExpositionFormat#detect(String)}). */
    public static Exposition parse(String text) {
        return parse(text, ExpositionFormat.detect(text));
    }

    /** Parses {@code text} as {@code format}. */
    public static Exposition parse(String text, ExpositionFormat format) {
        return new ExpositionParser(format).run(text);
    }

    /**
     * A label set as {@link Labels#render()} writes it ({@code a="1",b="x\\"y"}, no braces; empty for none), for
     * reading files back.
     *
     * @throws IllegalArgumentException naming the text and the reason when it is not a label set
     */
    public static Labels parseLabels(String rendered) {
        if (rendered.isEmpty()) return Labels.EMPTY;
        String line = "{" + rendered + "}";
        TreeMap<String, String> parsed = new TreeMap<>();
        try {
            int end = new ExpositionParser(ExpositionFormat.PROMETHEUS_TEXT_0_0_4).parseLabels(line, 1, 1, parsed);
            if (end != line.length()) throw new MalformedExpositionException(1, "text after the label set", null);
        } catch (MalformedExpositionException e) {
            throw new IllegalArgumentException("invalid label set '" + rendered + "': " + e.reason(), e);
        }
        return Labels.adopt(parsed);
    }

    private Exposition run(String text) {
        int lineNumber = 0;
        int pos = 0;
        while (pos < text.length()) {
            int newline = text.indexOf('\n', pos);
            int end = newline < 0 ? text.length() : newline;
            String line = text.substring(pos, end);
            pos = end + 1;
            lineNumber++;
            if (eofSeen) throw new MalformedExpositionException(lineNumber, "text after # EOF", line);
            if (line.indexOf('\r') >= 0) {
                throw new MalformedExpositionException(lineNumber, "carriage return in line (lines end with \\n alone)",
                        line.replace("\r", "\\r"));
            }
            parseLine(line, lineNumber);
        }
        if (openMetrics && !eofSeen) {
            throw new MalformedExpositionException(Math.max(lineNumber, 1), "OpenMetrics text does not end with # EOF",
                    null);
        }
        closeCurrent();
        List<MetricFamily> built = new ArrayList<>(families.size());
        for (FamilyBuilder f : families) built.add(f.build());
        return new Exposition(format, built);
    }

    private void parseLine(String line, int lineNumber) {
        if (openMetrics) {
            if (line.isEmpty()) throw new MalformedExpositionException(lineNumber, "empty line (OpenMetrics allows none)", line);
            if (line.charAt(0) == '#') {
                parseOpenMetricsComment(line, lineNumber);
            } else {
                parseSample(line, lineNumber);
            }
            return;
        }
        int start = skipBlanks(line, 0);
        if (start == line.length()) return;
        if (line.charAt(start) == '#') {
            parsePrometheusComment(line, lineNumber, start + 1);
        } else {
            parseSample(line, lineNumber);
        }
    }

    // ---- comments -------------------------------------------------------------------------------------------------

    /** 0.0.4: {@code # HELP}, {@code # TYPE}, or any other comment (ignored). */
    private void parsePrometheusComment(String line, int lineNumber, int afterHash) {
        int keywordStart = skipBlanks(line, afterHash);
        int keywordEnd = tokenEnd(line, keywordStart);
        String keyword = line.substring(keywordStart, keywordEnd);
        if (!keyword.equals("HELP") && !keyword.equals("TYPE")) return;
        if (keywordEnd == line.length() || !isBlank(line.charAt(keywordEnd))) {
            throw new MalformedExpositionException(lineNumber, "# " + keyword + " without a metric name", line);
        }
        int nameStart = skipBlanks(line, keywordEnd);
        int nameEnd = tokenEnd(line, nameStart);
        String name = metricName(line.substring(nameStart, nameEnd), lineNumber, line);
        int rest = skipBlanks(line, nameEnd);
        if (keyword.equals("HELP")) {
            setHelp(name, unescapeHelp(line.substring(rest), lineNumber, line), lineNumber, line);
        } else {
            String word = line.substring(rest).stripTrailing();
            setType(name, word, lineNumber, line);
        }
    }

    /** OpenMetrics: {@code # HELP}, {@code # TYPE}, {@code # UNIT}, {@code # EOF}; nothing else. */
    private void parseOpenMetricsComment(String line, int lineNumber) {
        if (line.equals("# EOF")) {
            eofSeen = true;
            return;
        }
        String keyword = line.startsWith("# HELP ") ? "HELP"
                : line.startsWith("# TYPE ") ? "TYPE"
                : line.startsWith("# UNIT ") ? "UNIT"
                : null;
        if (keyword == null) {
            throw new MalformedExpositionException(lineNumber,
                    "unknown comment (OpenMetrics allows only # HELP, # TYPE, # UNIT and # EOF)", line);
        }
        int nameStart = "# HELP ".length();
        int nameEnd = line.indexOf(' ', nameStart);
        if (nameEnd < 0) nameEnd = line.length();
        String name = metricName(line.substring(nameStart, nameEnd), lineNumber, line);
        String rest = nameEnd < line.length() ? line.substring(nameEnd + 1) : "";
        switch (keyword) {
            case "HELP" -> setHelp(name, unescapeHelp(rest, lineNumber, line), lineNumber, line);
            case "TYPE" -> setType(name, rest, lineNumber, line);
            default -> setUnit(name, rest, lineNumber, line);
        }
    }

    private void setHelp(String name, String help, int lineNumber, String line) {
        FamilyBuilder f = familyForMetadata(name, lineNumber, line);
        if (f.help != null) {
            throw new MalformedExpositionException(lineNumber, "second # HELP for " + name + " (first on line "
                    + f.helpLine + ")", line);
        }
        f.help = help;
        f.helpLine = lineNumber;
    }

    private void setType(String name, String word, int lineNumber, String line) {
        FamilyBuilder f = familyForMetadata(name, lineNumber, line);
        if (f.type != null) {
            throw new MalformedExpositionException(lineNumber, "second # TYPE for " + name + " (first on line "
                    + f.typeLine + ")", line);
        }
        if (!f.samples.isEmpty()) {
            throw new MalformedExpositionException(lineNumber, "# TYPE for " + name
                    + " after its first sample (line " + f.samples.get(0).lineNumber() + ")", line);
        }
        MetricType type = MetricType.fromWord(word, format);
        if (type == null) {
            throw new MalformedExpositionException(lineNumber, "unknown metric type '" + word + "' for " + format,
                    line);
        }
        f.type = type;
        f.typeLine = lineNumber;
    }

    private void setUnit(String name, String unit, int lineNumber, String line) {
        FamilyBuilder f = familyForMetadata(name, lineNumber, line);
        if (f.unit != null) throw new MalformedExpositionException(lineNumber, "second # UNIT for " + name, line);
        if (!unit.isEmpty() && !name.endsWith("_" + unit)) {
            throw new MalformedExpositionException(lineNumber, "unit '" + unit + "' is not a suffix of " + name, line);
        }
        f.unit = unit;
    }

    /** The family a metadata line speaks of: the current one, or a new one; never one that already ended. */
    private FamilyBuilder familyForMetadata(String name, int lineNumber, String line) {
        if (current != null && current.name.equals(name)) return current;
        FamilyBuilder earlier = familiesByName.get(name);
        if (earlier != null) {
            throw new MalformedExpositionException(lineNumber, "metadata for " + name
                    + " after its family ended (it began on line " + earlier.firstLine + ")", line);
        }
        return startFamily(name, lineNumber);
    }

    private FamilyBuilder startFamily(String name, int lineNumber) {
        closeCurrent();
        FamilyBuilder f = new FamilyBuilder(name, lineNumber);
        familiesByName.put(name, f);
        families.add(f);
        current = f;
        return f;
    }

    private void closeCurrent() {
        if (current != null) current.validateHistograms();
        current = null;
    }

    // ---- samples --------------------------------------------------------------------------------------------------

    private void parseSample(String line, int lineNumber) {
        int pos = openMetrics ? 0 : skipBlanks(line, 0);
        int nameEnd = pos;
        while (nameEnd < line.length() && isNameChar(line.charAt(nameEnd), nameEnd == pos)) nameEnd++;
        if (nameEnd == pos) throw new MalformedExpositionException(lineNumber, "expected a metric name", line);
        String name = line.substring(pos, nameEnd);
        pos = nameEnd;
        Labels labels = Labels.EMPTY;
        if (pos < line.length() && line.charAt(pos) == '{') {
            TreeMap<String, String> parsed = new TreeMap<>();
            pos = parseLabels(line, pos + 1, lineNumber, parsed);
            labels = Labels.adopt(parsed);
        }
        pos = expectSeparator(line, pos, lineNumber, "value");
        int valueEnd = tokenEnd(line, pos);
        double value = parseValue(line.substring(pos, valueEnd), lineNumber, line);
        pos = valueEnd;
        Long timestampMillis = null;
        if (pos < line.length()) {
            pos = expectSeparator(line, pos, lineNumber, "timestamp");
            if (openMetrics && line.startsWith("# ", pos)) {
                checkExemplar(line, pos, lineNumber);
            } else if (pos < line.length()) {
                int tsEnd = tokenEnd(line, pos);
                timestampMillis = parseTimestamp(line.substring(pos, tsEnd), lineNumber, line);
                pos = tsEnd;
                if (openMetrics) {
                    if (pos < line.length()) {
                        if (!line.startsWith(" # ", pos)) {
                            throw new MalformedExpositionException(lineNumber, "unexpected text after the timestamp", line);
                        }
                        checkExemplar(line, pos + 1, lineNumber);
                    }
                } else if (skipBlanks(line, pos) < line.length()) {
                    throw new MalformedExpositionException(lineNumber, "unexpected text after the timestamp", line);
                }
            }
        }
        FamilyBuilder family = familyForSample(name, lineNumber, line);
        family.add(new Sample(name, labels, value, timestampMillis, lineNumber), line);
    }

    /** After a name, label set or value: 0.0.4 wants blanks or tabs (or the end), OpenMetrics exactly one space. */
    private int expectSeparator(String line, int pos, int lineNumber, String what) {
        if (pos >= line.length()) {
            if (what.equals("value")) throw new MalformedExpositionException(lineNumber, "sample without a value", line);
            return pos;
        }
        if (openMetrics) {
            if (line.charAt(pos) != ' ') {
                throw new MalformedExpositionException(lineNumber, "expected one space before the " + what, line);
            }
            if (pos + 1 >= line.length() || line.charAt(pos + 1) == ' ') {
                throw new MalformedExpositionException(lineNumber, "expected the " + what
                        + " after one space", line);
            }
            return pos + 1;
        }
        if (!isBlank(line.charAt(pos))) {
            throw new MalformedExpositionException(lineNumber, "expected a blank before the " + what, line);
        }
        int next = skipBlanks(line, pos);
        if (next == line.length() && what.equals("value")) {
            throw new MalformedExpositionException(lineNumber, "sample without a value", line);
        }
        return next;
    }

    /** Exemplars are skipped, but must at least look like one: {@code # {labels} value [ts]}. */
    private static void checkExemplar(String line, int hashPos, int lineNumber) {
        if (!line.startsWith("# {", hashPos) || line.indexOf('}', hashPos) < 0) {
            throw new MalformedExpositionException(lineNumber, "malformed exemplar", line);
        }
    }

    /** Parses {@code name="value",…} up to and including the closing brace; returns the position after it. */
    private int parseLabels(String line, int pos, int lineNumber, Map<String, String> out) {
        boolean afterComma = false;
        while (true) {
            if (!openMetrics) pos = skipBlanks(line, pos);
            if (pos >= line.length()) throw new MalformedExpositionException(lineNumber, "label set is not closed", line);
            if (line.charAt(pos) == '}') {
                if (afterComma && openMetrics) {
                    throw new MalformedExpositionException(lineNumber, "trailing comma in label set", line);
                }
                return pos + 1;
            }
            int nameEnd = pos;
            while (nameEnd < line.length() && isLabelNameChar(line.charAt(nameEnd), nameEnd == pos)) nameEnd++;
            if (nameEnd == pos) throw new MalformedExpositionException(lineNumber, "invalid label name", line);
            String labelName = line.substring(pos, nameEnd);
            pos = openMetrics ? nameEnd : skipBlanks(line, nameEnd);
            if (pos >= line.length() || line.charAt(pos) != '=') {
                throw new MalformedExpositionException(lineNumber, "expected '=' after label name " + labelName, line);
            }
            pos = openMetrics ? pos + 1 : skipBlanks(line, pos + 1);
            if (pos >= line.length() || line.charAt(pos) != '"') {
                throw new MalformedExpositionException(lineNumber, "value of label " + labelName
                        + " is not in double quotes", line);
            }
            StringBuilder value = new StringBuilder();
            pos++;
            while (true) {
                if (pos >= line.length()) {
                    throw new MalformedExpositionException(lineNumber, "value of label " + labelName
                            + " is not closed", line);
                }
                char c = line.charAt(pos++);
                if (c == '"') break;
                if (c != '\\') {
                    value.append(c);
                    continue;
                }
                if (pos >= line.length()) {
                    throw new MalformedExpositionException(lineNumber, "value of label " + labelName
                            + " is not closed", line);
                }
                char escaped = line.charAt(pos++);
                switch (escaped) {
                    case '\\' -> value.append('\\');
                    case '"' -> value.append('"');
                    case 'n' -> value.append('\n');
                    default -> throw new MalformedExpositionException(lineNumber, "invalid escape \\" + escaped
                            + " in the value of label " + labelName + " (only \\\\, \\\" and \\n)", line);
                }
            }
            if (out.put(labelName, value.toString()) != null) {
                throw new MalformedExpositionException(lineNumber, "label " + labelName + " appears twice", line);
            }
            if (!openMetrics) pos = skipBlanks(line, pos);
            if (pos >= line.length()) throw new MalformedExpositionException(lineNumber, "label set is not closed", line);
            char next = line.charAt(pos);
            if (next == ',') {
                pos++;
                afterComma = true;
            } else if (next == '}') {
                return pos + 1;
            } else {
                throw new MalformedExpositionException(lineNumber, "expected ',' or '}' after label " + labelName, line);
            }
        }
    }

    /**
     * The family a sample belongs to: the current family when the sample's name fits it (a histogram's
     * {@code _bucket}, a summary's {@code _sum}, …), else a new untyped family of that name. A sample of a family
     * that already ended is an error: the formats require a family's lines to be together.
     */
    private FamilyBuilder familyForSample(String sampleName, int lineNumber, String line) {
        if (current != null && current.accepts(sampleName, openMetrics)) return current;
        for (FamilyBuilder earlier : families) {
            if (earlier.accepts(sampleName, openMetrics)) {
                throw new MalformedExpositionException(lineNumber, "sample of " + earlier.name
                        + " after its family ended (it began on line " + earlier.firstLine
                        + "); a family's lines must be together", line);
            }
        }
        FamilyBuilder earlier = familiesByName.get(sampleName);
        if (earlier != null) {
            throw new MalformedExpositionException(lineNumber, "sample of " + sampleName
                    + " does not fit its family's type " + earlier.typeOrUntyped().word, line);
        }
        return startFamily(sampleName, lineNumber);
    }

    // ---- tokens ---------------------------------------------------------------------------------------------------

    /**
     * A sample value or {@code le}/{@code quantile}: decimal floats with optional exponent, {@code NaN} and
     * {@code +Inf}/{@code -Inf} ({@code Inf}, {@code Infinity}, any case, as Go's {@code ParseFloat} takes them).
     * Java's own suffixes ({@code 1.0d}) and hex floats are rejected.
     */
    public static Double parseFloatOrNull(String token) {
        if (isDecimal(token)) return Double.parseDouble(token);
        String lower = token.toLowerCase(Locale.ROOT);
        return switch (lower) {
            case "nan" -> Double.NaN;
            case "inf", "+inf", "infinity", "+infinity" -> Double.POSITIVE_INFINITY;
            case "-inf", "-infinity" -> Double.NEGATIVE_INFINITY;
            default -> null;
        };
    }

    /**
     * {@code [+-]?(digits[.digits?]|.digits)([eE][+-]?digits)?}, ASCII digits only: what Go's {@code ParseFloat} takes
     * in decimal, and nothing Java's {@code parseDouble} adds (suffixes {@code d}/{@code f}, hex, "Infinity").
     */
    private static boolean isDecimal(String s) {
        int n = s.length();
        int i = 0;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) i++;
        int digits = 0;
        while (i < n && isDigit(s.charAt(i))) {
            i++;
            digits++;
        }
        if (i < n && s.charAt(i) == '.') {
            i++;
            while (i < n && isDigit(s.charAt(i))) {
                i++;
                digits++;
            }
        }
        if (digits == 0) return false;
        if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
            i++;
            if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) i++;
            int exponentDigits = 0;
            while (i < n && isDigit(s.charAt(i))) {
                i++;
                exponentDigits++;
            }
            if (exponentDigits == 0) return false;
        }
        return i == n;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static double parseValue(String token, int lineNumber, String line) {
        Double v = parseFloatOrNull(token);
        if (v == null) throw new MalformedExpositionException(lineNumber, "invalid value '" + token + "'", line);
        return v;
    }

    /** 0.0.4: integer milliseconds. OpenMetrics: decimal seconds, no NaN or infinities. */
    private Long parseTimestamp(String token, int lineNumber, String line) {
        if (!openMetrics) {
            if (!INTEGER.matcher(token).matches()) {
                throw new MalformedExpositionException(lineNumber, "invalid timestamp '" + token
                        + "' (integer milliseconds)", line);
            }
            try {
                return Long.parseLong(token);
            } catch (NumberFormatException e) {
                throw new MalformedExpositionException(lineNumber, "timestamp '" + token + "' is out of range", line);
            }
        }
        if (!isDecimal(token)) {
            throw new MalformedExpositionException(lineNumber, "invalid timestamp '" + token + "' (seconds)", line);
        }
        return Math.round(Double.parseDouble(token) * 1000.0);
    }

    private String unescapeHelp(String text, int lineNumber, String line) {
        if (text.indexOf('\\') < 0) return text;
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (i + 1 >= text.length()) {
                throw new MalformedExpositionException(lineNumber, "HELP text ends in a lone backslash", line);
            }
            char escaped = text.charAt(++i);
            if (escaped == '\\') {
                out.append('\\');
            } else if (escaped == 'n') {
                out.append('\n');
            } else if (escaped == '"' && openMetrics) {
                out.append('"');
            } else {
                throw new MalformedExpositionException(lineNumber, "invalid escape \\" + escaped + " in HELP text ("
                        + (openMetrics ? "only \\\\, \\\" and \\n" : "only \\\\ and \\n") + ")", line);
            }
        }
        return out.toString();
    }

    private static String metricName(String token, int lineNumber, String line) {
        if (!METRIC_NAME.matcher(token).matches()) {
            throw new MalformedExpositionException(lineNumber, "invalid metric name '" + token + "'", line);
        }
        return token;
    }

    private static boolean isNameChar(char c, boolean first) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || !first && c >= '0' && c <= '9';
    }

    private static boolean isLabelNameChar(char c, boolean first) {
        return c != ':' && isNameChar(c, first);
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t';
    }

    private static int skipBlanks(String line, int pos) {
        while (pos < line.length() && isBlank(line.charAt(pos))) pos++;
        return pos;
    }

    private static int tokenEnd(String line, int pos) {
        while (pos < line.length() && !isBlank(line.charAt(pos))) pos++;
        return pos;
    }

    // ---- one family while it is read --------------------------------------------------------------------------------

    private record SeriesKey(String name, Labels labels) {
    }

    private static final class FamilyBuilder {
        final String name;
        final int firstLine;
        MetricType type;
        int typeLine;
        String help;
        int helpLine;
        String unit;
        final List<Sample> samples = new ArrayList<>();
        final Map<SeriesKey, Integer> seriesLines = new HashMap<>();

        FamilyBuilder(String name, int firstLine) {
            this.name = name;
            this.firstLine = firstLine;
        }

        MetricType typeOrUntyped() {
            return type == null ? MetricType.UNTYPED : type;
        }

        boolean accepts(String sampleName, boolean openMetrics) {
            if (!sampleName.startsWith(name)) return false;
            String suffix = sampleName.substring(name.length());
            return switch (typeOrUntyped()) {
                case COUNTER -> openMetrics ? suffix.equals("_total") || suffix.equals("_created") : suffix.isEmpty();
                case GAUGE, UNTYPED, STATESET -> suffix.isEmpty();
                case HISTOGRAM -> suffix.equals("_bucket") || suffix.equals("_sum") || suffix.equals("_count")
                        || openMetrics && suffix.equals("_created");
                case GAUGE_HISTOGRAM -> suffix.equals("_bucket") || suffix.equals("_gsum") || suffix.equals("_gcount");
                case SUMMARY -> suffix.isEmpty() || suffix.equals("_sum") || suffix.equals("_count")
                        || openMetrics && suffix.equals("_created");
                case INFO -> suffix.equals("_info");
            };
        }

        void add(Sample sample, String line) {
            MetricType t = typeOrUntyped();
            boolean bucket = (t == MetricType.HISTOGRAM || t == MetricType.GAUGE_HISTOGRAM)
                    && sample.name().equals(name + "_bucket");
            if (bucket) {
                String le = sample.labels().get("le");
                if (le == null) {
                    throw new MalformedExpositionException(sample.lineNumber(), "histogram bucket without an le label",
                            line);
                }
                Double bound = parseFloatOrNull(le);
                if (bound == null || bound.isNaN()) {
                    throw new MalformedExpositionException(sample.lineNumber(), "invalid le=\"" + le + "\"", line);
                }
            }
            if (t == MetricType.SUMMARY && sample.name().equals(name)) {
                String quantile = sample.labels().get("quantile");
                Double q = quantile == null ? null : parseFloatOrNull(quantile);
                if (q == null) {
                    throw new MalformedExpositionException(sample.lineNumber(),
                            "summary quantile sample without a valid quantile label", line);
                }
            }
            Integer first = seriesLines.putIfAbsent(new SeriesKey(sample.name(), sample.labels()), sample.lineNumber());
            if (first != null) {
                throw new MalformedExpositionException(sample.lineNumber(), "duplicate sample " + sample.name()
                        + sample.labels() + " (first on line " + first + ")", line);
            }
            samples.add(sample);
        }

        /**
         * Per series: a {@code le="+Inf"} bucket, cumulative counts, and {@code _count} equal to the {@code +Inf}
         * bucket. A series with {@code _sum}/{@code _count} and no buckets at all is accepted.
         */
        void validateHistograms() {
            MetricType t = typeOrUntyped();
            if (t != MetricType.HISTOGRAM && t != MetricType.GAUGE_HISTOGRAM) return;
            String countName = name + (t == MetricType.HISTOGRAM ? "_count" : "_gcount");
            Map<Labels, TreeMap<Double, Sample>> bucketsBySeries = new LinkedHashMap<>();
            Map<Labels, Sample> counts = new HashMap<>();
            for (Sample s : samples) {
                if (s.name().equals(name + "_bucket")) {
                    double le = parseFloatOrNull(s.labels().get("le"));
                    Sample clash = bucketsBySeries.computeIfAbsent(s.labels().without("le"), k -> new TreeMap<>())
                            .put(le, s);
                    if (clash != null) {
                        throw new MalformedExpositionException(s.lineNumber(), "two buckets with le=" + le
                                + " (first on line " + clash.lineNumber() + ")", null);
                    }
                } else if (s.name().equals(countName)) {
                    counts.put(s.labels(), s);
                }
            }
            for (Map.Entry<Labels, TreeMap<Double, Sample>> series : bucketsBySeries.entrySet()) {
                TreeMap<Double, Sample> buckets = series.getValue();
                Sample inf = buckets.get(Double.POSITIVE_INFINITY);
                if (inf == null) {
                    throw new MalformedExpositionException(buckets.lastEntry().getValue().lineNumber(),
                            "histogram " + name + series.getKey() + " has no le=\"+Inf\" bucket", null);
                }
                Sample previous = null;
                for (Sample b : buckets.values()) {
                    if (previous != null && b.value() < previous.value()) {
                        throw new MalformedExpositionException(b.lineNumber(), "bucket le=\"" + b.labels().get("le")
                                + "\" (" + b.value() + ") is less than the bucket below it (le=\""
                                + previous.labels().get("le") + "\", " + previous.value()
                                + "); histogram buckets are cumulative", null);
                    }
                    previous = b;
                }
                Sample count = counts.get(series.getKey());
                if (count != null && !Double.isNaN(count.value()) && count.value() != inf.value()) {
                    throw new MalformedExpositionException(count.lineNumber(), countName + " (" + count.value()
                            + ") differs from the le=\"+Inf\" bucket (" + inf.value() + ")", null);
                }
            }
        }

        MetricFamily build() {
            return new MetricFamily(name, typeOrUntyped(), help, unit, samples);
        }
    }
}
