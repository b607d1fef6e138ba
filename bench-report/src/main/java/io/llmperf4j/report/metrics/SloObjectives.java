package io.llmperf4j.report.metrics;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code --slo} says: objectives judged over a level ({@link SloObjective}) and the per-request bounds of
 * goodput ({@link Slo}). Terms are comma-separated and combinable:
 * <ul>
 *   <li>{@code ttft_p99<=500ms}, {@code tpot_p90<=50ms}, {@code itl_p99<=100ms}, {@code e2e_p95<=20s}: percentile
 *       objectives;</li>
 *   <li>{@code ttft<=500ms@99%}: at least 99 % of the requests have TTFT ≤ 500 ms (attainment);</li>
 *   <li>{@code error_rate<=1%};</li>
 *   <li>{@code ttft=500ms} (or {@code ttft:500}): a goodput bound only, vLLM's {@code --goodput} form.</li>
 * </ul>
 * Metrics ttft, tpot, itl, e2e (e2el); units ns, us, ms, s, a bare number being milliseconds. Goodput counts a
 * request good when it meets every TTFT, TPOT and E2E bound given in any form (the explicit goodput bounds win over
 * the objectives' for the same metric); ITL has no per-request goodput bound.
 *
 * @param objectives the objectives, in the order given; empty when only goodput bounds were given
 * @param goodput    the per-request bounds of goodput, or null when there are none
 * @param boundTerms for each bounded goodput metric, every term that bounds it: the explicit goodput term first
 *                   ({@code ttft=400ms}, which wins), then the objectives of that metric in the order given (their
 *                   tightest bound is used when there is no explicit term); see {@link #mergedBounds()}
 */
public record SloObjectives(List<SloObjective> objectives, Slo goodput, Map<SloMetric, List<String>> boundTerms) {

    private static final String NUMBER = "(\\d+(?:\\.\\d*)?|\\.\\d+)";
    private static final String UNIT = "(ns|us|µs|ms|s)?";
    private static final Pattern PERCENTILE = Pattern.compile(
            "([a-z0-9]+)_p" + NUMBER + "\\s*<=\\s*" + NUMBER + "\\s*" + UNIT, Pattern.CASE_INSENSITIVE);
    private static final Pattern ATTAINMENT = Pattern.compile(
            "([a-z0-9]+)\\s*<=\\s*" + NUMBER + "\\s*" + UNIT + "\\s*@\\s*" + NUMBER + "\\s*%", Pattern.CASE_INSENSITIVE);
    private static final Pattern ERROR_RATE = Pattern.compile("error_rate\\s*<=\\s*" + NUMBER + "\\s*%",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern GOODPUT = Pattern.compile("([a-z0-9]+)\\s*[:=]\\s*(\\S*)", Pattern.CASE_INSENSITIVE);
    private static final Pattern LIMIT = Pattern.compile(NUMBER + "\\s*" + UNIT, Pattern.CASE_INSENSITIVE);
    /** A limit whose number is followed by letters that are no unit: "500mss", "2min". */
    private static final Pattern ANY_UNIT = Pattern.compile(NUMBER + "\\s*([\\p{L}]+)");
    private static final String UNITS = "units ns, us (µs), ms, s; a bare number is ms";

    /** The forms, for error messages. */
    public static final String FORMS = "expected comma-separated terms such as ttft_p99<=500ms (percentile), "
            + "ttft<=500ms@99% (attainment), error_rate<=1% or ttft=500ms (goodput bound); metrics ttft, tpot, itl, "
            + "e2e; units ns, us, ms, s (a bare number is ms)";

    public SloObjectives {
        objectives = List.copyOf(objectives);
        if (objectives.isEmpty() && goodput == null) {
            throw new IllegalArgumentException("an SLO needs at least one term; " + FORMS);
        }
        Map<SloMetric, List<String>> terms = new EnumMap<>(SloMetric.class);
        if (boundTerms != null) boundTerms.forEach((m, t) -> terms.put(m, List.copyOf(t)));
        boundTerms = java.util.Collections.unmodifiableMap(terms);
    }

    /** Objectives and goodput bounds without a record of which terms gave the bounds. */
    public SloObjectives(List<SloObjective> objectives, Slo goodput) {
        this(objectives, goodput, null);
    }

    /**
     * Parses {@code --slo}'s text.
     *
     * @throws IllegalArgumentException one line naming the offending term and the accepted forms
     */
    public static SloObjectives parse(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("the SLO is empty; " + FORMS);
        }
        List<SloObjective> objectives = new ArrayList<>();
        Set<String> keys = new LinkedHashSet<>();
        Map<SloMetric, Duration> explicit = new EnumMap<>(SloMetric.class);
        Map<SloMetric, Duration> implied = new EnumMap<>(SloMetric.class);
        Map<SloMetric, List<String>> explicitTerms = new EnumMap<>(SloMetric.class);
        Map<SloMetric, List<String>> impliedTerms = new EnumMap<>(SloMetric.class);
        for (String raw : spec.split(",", -1)) {
            String term = raw.strip();
            SloObjective objective = objective(term, spec);
            if (objective == null) {
                Matcher g = GOODPUT.matcher(term);
                if (!g.matches()) throw bad(term, spec, "is not a term");
                SloMetric metric = metric(g.group(1), term, spec);
                if (metric == SloMetric.ITL) throw bad(term, spec, "has no per-request goodput bound (use itl_p99<=...)");
                Duration limit = limit(g.group(2), term, spec);
                if (explicit.put(metric, limit) != null) {
                    throw new IllegalArgumentException("SLO '" + spec + "' gives the goodput bound of "
                            + metric.key() + " twice");
                }
                explicitTerms.put(metric, List.of(metric.key() + "=" + SloObjective.millis(limit) + "ms"));
                continue;
            }
            if (!keys.add(objective.key())) {
                throw new IllegalArgumentException("SLO '" + spec + "' gives " + objective.key() + " twice");
            }
            objectives.add(objective);
            SloMetric bounded = objective instanceof SloObjective.Percentile p ? p.metric()
                    : objective instanceof SloObjective.Attainment a ? a.metric() : null;
            Duration bound = objective instanceof SloObjective.Percentile p ? p.bound()
                    : objective instanceof SloObjective.Attainment a ? a.bound() : null;
            if (bounded != null) {
                implied.merge(bounded, bound, SloObjectives::min);
                impliedTerms.computeIfAbsent(bounded, m -> new ArrayList<>()).add(objective.key());
            }
        }
        implied.forEach(explicit::putIfAbsent);
        Duration ttft = explicit.get(SloMetric.TTFT);
        Duration tpot = explicit.get(SloMetric.TPOT);
        Duration e2e = explicit.get(SloMetric.E2E);
        Slo goodput = ttft == null && tpot == null && e2e == null ? null : new Slo(ttft, tpot, e2e);
        Map<SloMetric, List<String>> terms = new EnumMap<>(SloMetric.class);
        for (SloMetric m : new SloMetric[]{SloMetric.TTFT, SloMetric.TPOT, SloMetric.E2E}) {
            List<String> all = new ArrayList<>(explicitTerms.getOrDefault(m, List.of()));
            all.addAll(impliedTerms.getOrDefault(m, List.of()));
            if (!all.isEmpty()) terms.put(m, all);
        }
        return new SloObjectives(objectives, goodput, terms);
    }

    /**
     * How the goodput bounds were chosen where several terms bound one metric, e.g. {@code "TTFT bound 300 ms: the
     * tightest of ttft_p99<=500ms, ttft<=300ms@90%"} or {@code "TTFT bound 400 ms: ttft=400ms, over
     * ttft_p99<=500ms"}; empty when every bounded metric has one term.
     */
    public List<String> mergedBounds() {
        List<String> notes = new ArrayList<>();
        if (goodput == null) return notes;
        boundTerms.forEach((metric, terms) -> {
            Duration used = switch (metric) {
                case TTFT -> goodput.ttft();
                case TPOT -> goodput.tpot();
                case E2E -> goodput.e2e();
                default -> null;
            };
            if (terms.size() < 2 || used == null) return;
            String head = metric.label() + " bound " + SloObjective.millis(used) + " ms: ";
            if (terms.get(0).contains("=") && !terms.get(0).contains("<=")) {
                notes.add(head + terms.get(0) + ", over " + String.join(", ", terms.subList(1, terms.size())));
            } else {
                notes.add(head + "the tightest of " + String.join(", ", terms));
            }
        });
        return notes;
    }

    /**
     * The terms that need a stream to be judged: every TPOT or ITL objective, and the goodput TPOT bound when no
     * objective gives it ("tpot=50ms"). A response that arrives whole has neither TPOT nor ITL.
     */
    public List<String> streamOnlyTerms() {
        List<String> terms = new ArrayList<>();
        for (SloObjective o : objectives) {
            SloMetric m = o instanceof SloObjective.Percentile p ? p.metric()
                    : o instanceof SloObjective.Attainment a ? a.metric() : null;
            if (m == SloMetric.TPOT || m == SloMetric.ITL) terms.add(o.key());
        }
        boolean tpotObjective = terms.stream().anyMatch(t -> t.startsWith(SloMetric.TPOT.key()));
        if (goodput != null && goodput.tpot() != null && !tpotObjective) {
            terms.add(SloMetric.TPOT.key() + "=" + SloObjective.millis(goodput.tpot()) + "ms");
        }
        return terms;
    }

    /** "ttft_p99<=500ms, error_rate<=1%" (the goodput bounds when there is no objective). */
    public String describe() {
        if (objectives.isEmpty()) return goodput.describe();
        return String.join(", ", objectives.stream().map(SloObjective::key).toList());
    }

    private static SloObjective objective(String term, String spec) {
        Matcher m = PERCENTILE.matcher(term);
        if (m.matches()) {
            SloMetric metric = metric(m.group(1), term, spec);
            double p = Double.parseDouble(m.group(2));
            if (!(p > 0 && p < 100)) throw bad(term, spec, "needs a percentile between 0 and 100 (e.g. p99)");
            return new SloObjective.Percentile(metric, p, duration(m.group(3), m.group(4), term, spec));
        }
        m = ATTAINMENT.matcher(term);
        if (m.matches()) {
            SloMetric metric = metric(m.group(1), term, spec);
            double target = Double.parseDouble(m.group(4)) / 100;
            if (!(target > 0 && target <= 1)) throw bad(term, spec, "needs an attainment in (0%, 100%]");
            return new SloObjective.Attainment(metric, duration(m.group(2), m.group(3), term, spec), target);
        }
        m = ERROR_RATE.matcher(term);
        if (m.matches()) {
            double rate = Double.parseDouble(m.group(1)) / 100;
            if (!(rate < 1)) throw bad(term, spec, "needs an error rate below 100%");
            return new SloObjective.ErrorRate(rate);
        }
        if (term.toLowerCase(Locale.ROOT).startsWith("error_rate")) {
            throw bad(term, spec, "is not error_rate<=N% (a percentage, e.g. error_rate<=1%)");
        }
        if (term.matches(".*<=\\s*-.*")) throw bad(term, spec, "needs a limit > 0");
        if (term.contains("<=")) {
            unknownUnit(term.substring(term.indexOf("<=") + 2), term, spec);
            throw bad(term, spec, "is not a percentile or attainment objective");
        }
        return null;
    }

    private static SloMetric metric(String name, String term, String spec) {
        return SloMetric.named(name).orElseThrow(() -> bad(term, spec, "names no metric ('" + name
                + "' is not ttft, tpot, itl or e2e)"));
    }

    private static Duration limit(String text, String term, String spec) {
        Matcher m = LIMIT.matcher(text);
        if (!m.matches()) {
            unknownUnit(text, term, spec);
            throw bad(term, spec, "has no valid limit ('" + text + "' is not like 500ms, 0.5s or 500)");
        }
        return duration(m.group(1), m.group(2), term, spec);
    }

    /** Throws naming the unit when {@code limit} starts with a number and a unit that is none of the accepted. */
    private static void unknownUnit(String limit, String term, String spec) {
        Matcher m = ANY_UNIT.matcher(limit.strip());
        if (!m.lookingAt()) return;
        String unit = m.group(2);
        if (unit.matches("(?i)ns|us|µs|ms|s")) return; // a known unit: something else is wrong with the term
        throw bad(term, spec, "has an unknown unit '" + unit + "' (" + UNITS + ")");
    }

    private static Duration duration(String number, String unit, String term, String spec) {
        int shift = switch (unit == null ? "ms" : unit.toLowerCase(Locale.ROOT)) {
            case "ns" -> 0;
            case "us", "µs" -> 3;
            case "s" -> 9;
            default -> 6;
        };
        long nanos = new BigDecimal(number).movePointRight(shift).setScale(0, RoundingMode.HALF_UP).longValueExact();
        if (nanos <= 0) throw bad(term, spec, "needs a limit > 0");
        return Duration.ofNanos(nanos);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static IllegalArgumentException bad(String term, String spec, String why) {
        Objects.requireNonNull(term);
        return new IllegalArgumentException("SLO term '" + term + "' in '" + spec + "' " + why + "; " + FORMS);
    }
}
