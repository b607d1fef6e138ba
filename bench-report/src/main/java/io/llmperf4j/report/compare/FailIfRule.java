package io.llmperf4j.report.compare;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A regression gate on a {@link RunComparison}, in the form {@code <metric>[_<stat>]<op><change>}:
 * <ul>
 *   <li>metric: {@code ttft}, {@code tpot}, {@code itl} (per event), {@code itl_per_token}, {@code e2e},
 *       {@code send_lag}, {@code ttft_from_intended}, {@code e2e_from_intended} (runs with send lags: an open loop,
 *       sessions), {@code request_tps} (each with a statistic {@code _p50}, {@code _p90}, {@code _p99} or {@code _mean}),
 *       or one of the run-level {@code output_throughput},
 *       {@code request_throughput}, {@code error_rate} (no statistic);</li>
 *   <li>op: {@code >}, {@code >=}, {@code <}, {@code <=}; the rule <em>fails</em> when
 *       {@code change op limit} holds;</li>
 *   <li>change: a signed number; with {@code %} it is relative to the baseline ((candidate − baseline) / baseline),
 *       otherwise absolute (candidate − baseline) in the metric's unit: ms for latencies (or with a unit
 *       {@code us}, {@code ms}, {@code s}), tok/s, req/s, or a fraction for {@code error_rate}.</li>
 * </ul>
 * Examples: {@code ttft_p90>+10%} fails when TTFT p90 grew by more than 10 %; {@code e2e_p99>+500ms} when E2E p99
 * grew by more than 500 ms; {@code itl_p90>+10%} when the p90 gap between content events grew by more than
 * 10 %; {@code output_throughput<-5%} when output throughput fell by more than 5 %;
 * {@code error_rate>0.01} when the error rate rose by more than one percentage point. Case and spaces are
 * ignored. The point estimate decides; the message says when the confidence interval reaches the limit. When both
 * runs carry send lags, {@code ttft} and {@code e2e} rules judge the statistic from the intended send, as goodput
 * and the SLO verdict do (see {@link #evaluate}); the table's TTFT and E2E rows stay from the actual send.
 *
 * @param text      the rule as given
 * @param metric    the metric
 * @param stat      the statistic ({@link CompareStat#VALUE} for run-level metrics)
 * @param operator  the comparison
 * @param threshold the limit, in percent for relative rules, else in the metric's unit
 * @param relative  true for a {@code %} limit
 */
public record FailIfRule(String text, CompareMetric metric, CompareStat stat, Operator operator, double threshold,
                         boolean relative) {

    private static final Pattern CHANGE = Pattern.compile(
            "([+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+))\\s*(%|ms|s|us|µs)?", Pattern.CASE_INSENSITIVE);
    private static final String EXAMPLES = "e.g. ttft_p90>+10%, e2e_p99>+500ms or output_throughput<-5%";

    /** The comparison of a rule; the rule fails when {@code observed op threshold}. */
    public enum Operator {
        GREATER(">"), GREATER_OR_EQUAL(">="), LESS("<"), LESS_OR_EQUAL("<=");

        private final String symbol;

        Operator(String symbol) {
            this.symbol = symbol;
        }

        /** {@code ">"}, {@code ">="}, ... */
        public String symbol() {
            return symbol;
        }

        /** Whether {@code observed op limit} holds. */
        public boolean holds(double observed, double limit) {
            return switch (this) {
                case GREATER -> observed > limit;
                case GREATER_OR_EQUAL -> observed >= limit;
                case LESS -> observed < limit;
                case LESS_OR_EQUAL -> observed <= limit;
            };
        }
    }

    public FailIfRule {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(metric, "metric");
        Objects.requireNonNull(stat, "stat");
        Objects.requireNonNull(operator, "operator");
        if (metric.perRequest() == (stat == CompareStat.VALUE)) {
            throw new IllegalArgumentException("stat " + stat + " does not apply to " + metric);
        }
    }

    /**
     * Parses one rule.
     *
     * @throws FailIfSyntaxException with a message that quotes the rule, says what is wrong and what is expected
     */
    public static FailIfRule parse(String text) {
        if (text == null || text.isBlank()) {
            throw new FailIfSyntaxException(String.valueOf(text),
                    "fail-if rule is empty; expected <metric>[_<stat>]<op><change>, " + EXAMPLES);
        }
        String rule = text.strip();
        int at = indexOfOperator(rule);
        if (at < 0) {
            throw syntax(rule, "no comparison (>, >=, < or <=); expected <metric>[_<stat>]<op><change>, " + EXAMPLES);
        }
        boolean orEqual = at + 1 < rule.length() && rule.charAt(at + 1) == '=';
        Operator operator = rule.charAt(at) == '>'
                ? (orEqual ? Operator.GREATER_OR_EQUAL : Operator.GREATER)
                : (orEqual ? Operator.LESS_OR_EQUAL : Operator.LESS);
        String name = rule.substring(0, at).strip().toLowerCase(Locale.ROOT);
        String change = rule.substring(at + operator.symbol().length()).strip();
        if (name.isEmpty()) {
            throw syntax(rule, "no metric before '" + operator.symbol() + "'; expected one of " + validNames());
        }
        if (change.isEmpty()) {
            throw syntax(rule, "no change after '" + operator.symbol() + "'; expected a signed number with % "
                    + "(relative) or a unit (absolute), e.g. +10%, +50ms, -5%");
        }

        CompareMetric metric = CompareMetric.byKey(name);
        CompareStat stat;
        if (metric != null) {
            if (metric.perRequest()) {
                throw syntax(rule, name + " needs a statistic: " + Arrays.stream(CompareStat.PER_REQUEST)
                        .map(s -> name + "_" + s.key()).collect(Collectors.joining(", ")));
            }
            stat = CompareStat.VALUE;
        } else {
            int underscore = name.lastIndexOf('_');
            metric = underscore > 0 ? CompareMetric.byKey(name.substring(0, underscore)) : null;
            if (metric == null) {
                throw syntax(rule, "unknown metric '" + name + "'; use one of " + validNames());
            }
            String statKey = name.substring(underscore + 1);
            if (!metric.perRequest()) {
                throw syntax(rule, metric.key() + " is one value per run and takes no statistic; drop '_"
                        + statKey + "'");
            }
            stat = CompareStat.perRequestByKey(statKey);
            if (stat == null) {
                throw syntax(rule, "unknown statistic '" + statKey + "' for " + metric.key() + "; use "
                        + Arrays.stream(CompareStat.PER_REQUEST).map(CompareStat::key).collect(Collectors.joining(", ")));
            }
        }

        Matcher m = CHANGE.matcher(change);
        if (!m.matches()) {
            throw syntax(rule, "'" + change + "' is not a change; expected a signed number with % (relative) or "
                    + "a unit (absolute), e.g. +10%, +50ms, -5%");
        }
        double value = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "" : m.group(2).toLowerCase(Locale.ROOT);
        boolean relative = unit.equals("%");
        if (!relative && !unit.isEmpty()) {
            if (!metric.isLatency()) {
                throw syntax(rule, "unit '" + unit + "' does not apply to " + metric.key() + " (" + metric.unit()
                        + "); use % or a plain number in " + metric.unit());
            }
            value = switch (unit) {
                case "s" -> value * 1_000.0;
                case "us", "µs" -> value / 1_000.0;
                default -> value;
            };
        }
        return new FailIfRule(rule, metric, stat, operator, value, relative);
    }

    /**
     * Parses comma-separated rules, e.g. {@code "ttft_p90>+10%, output_throughput<-5%"}; blanks between commas are
     * skipped.
     *
     * @throws FailIfSyntaxException for a malformed rule, or when there is no rule at all ({@code ""}, {@code ","}):
     *                               a gate given an empty list (an unset variable in a CI script) would pass
     *                               whatever the runs did
     */
    public static List<FailIfRule> parseAll(String commaSeparated) {
        List<FailIfRule> rules = new ArrayList<>();
        for (String part : commaSeparated.split(",")) {
            if (!part.isBlank()) rules.add(parse(part));
        }
        if (rules.isEmpty()) {
            throw new FailIfSyntaxException(commaSeparated, "no rule in '" + commaSeparated + "': a gate without "
                    + "rules passes whatever the runs did (an empty variable in a script?); give at least one, "
                    + EXAMPLES + ", or leave the option out");
        }
        return rules;
    }

    /** The name this rule tests, e.g. {@code ttft_p90}. */
    public String ruleKey() {
        return stat == CompareStat.VALUE ? metric.key() : metric.key() + "_" + stat.key();
    }

    /** Tests the rule against {@code comparison}. */
    public RuleResult evaluate(RunComparison comparison) {
        Optional<MetricDelta> compared = comparison.delta(metric, stat);
        if (compared.isEmpty()) {
            return new RuleResult(this, RuleResult.Verdict.NOT_EVALUATED, Double.NaN, "NOT EVALUATED " + text + ": "
                    + (metric.needsSendLag() ? "neither run recorded send lags (a plain closed loop sends the moment "
                    + "a slot frees: it has no intended send), so there is no " + ruleKey()
                    + (metric == CompareMetric.SEND_LAG ? "" : "; use " + ruleKey().replace("_from_intended", ""))
                    : "this comparison has no " + ruleKey()));
        }
        MetricDelta delta = compared.get();
        String what = metric.label() + (stat == CompareStat.VALUE ? "" : " " + stat.key());
        Optional<MetricDelta> intended = intendedTwin(comparison);
        String actualNote = "";
        if (intended.isPresent()) {
            // a scheduled run's TTFT and E2E are judged from the intended send, as goodput and the SLO verdict judge
            double fromActual = relative ? delta.relativeDeltaPercent() : delta.absoluteDelta();
            actualNote = "; judged from the intended send, as goodput and the SLO verdict judge a scheduled run: "
                    + "from the actual send (the " + metric.label() + " row) it changed by "
                    + (Double.isFinite(fromActual) ? formatChange(fromActual) : "-");
            delta = intended.get();
            what = delta.metric().label() + " " + stat.key();
        }
        if (Double.isNaN(delta.baseline()) || Double.isNaN(delta.candidate())) {
            String side = Double.isNaN(delta.baseline()) ? "baseline" : "candidate";
            return new RuleResult(this, RuleResult.Verdict.NOT_EVALUATED, Double.NaN, "NOT EVALUATED " + text + ": "
                    + "the " + side + " has no " + what + " (no successful request with that value"
                    + (metric.pooled() ? "; ITL needs the per-event times of requests.jsonl" : "") + ")");
        }
        double observed = relative ? delta.relativeDeltaPercent() : delta.absoluteDelta();
        if (Double.isNaN(observed)) {
            return new RuleResult(this, RuleResult.Verdict.NOT_EVALUATED, Double.NaN, "NOT EVALUATED " + text + ": "
                    + "the baseline " + what + " is 0, so a relative change is undefined; use an absolute limit"
                    + absoluteForm());
        }
        boolean fails = operator.holds(observed, threshold);
        ConfidenceInterval ci = relative ? delta.relativeCi() : delta.absoluteCi();
        StringBuilder message = new StringBuilder();
        message.append(fails ? "FAIL " : "pass ").append(text).append(": ").append(what).append(" changed by ")
                .append(formatChange(observed)).append(" (").append(formatValue(delta.baseline())).append(" -> ")
                .append(formatValue(delta.candidate())).append(' ').append(metric.unit());
        if (ci != null) {
            message.append(", ").append(ConfidenceInterval.percent(ci.level())).append("% CI ")
                    .append(formatChange(ci.lower())).append(" to ").append(formatChange(ci.upper()));
        }
        message.append("); fails when ").append(operator.symbol()).append(' ').append(formatChange(threshold));
        if (ci != null && ci.contains(threshold) && ci.hasWidth()) {
            message.append("; the CI reaches the limit, so this verdict may be noise");
        }
        if (ci != null && !ci.hasWidth()) {
            message.append("; no variation measured (the interval has no width), so no noise estimate");
        }
        boolean throughput = metric == CompareMetric.OUTPUT_THROUGHPUT || metric == CompareMetric.REQUEST_THROUGHPUT;
        if (ci == null && throughput && !IterationsComparison.SOURCE.equals(comparison.baseline().source())) {
            message.append("; this figure has no interval (one value per run, no spread to estimate noise from): "
                    + "separate runs of an unchanged server move it by a few percent, so a verdict near the limit may "
                    + "be noise; repeat runs (--iterations) for an interval");
        }
        if (metric == CompareMetric.ERROR_RATE) {
            comparison.failuresNotTheServers().ifPresent(line -> message.append("; ").append(line));
        } else if (throughput && comparison.unsentLoad().isPresent()) {
            message.append("; ").append(comparison.unsentLoad().get());
        } else if (throughput && comparison.failuresNotTheServers().isPresent()) {
            message.append("; failed requests deliver nothing, and some were not the server's (the error rate line "
                    + "says which)");
        }
        message.append(actualNote);
        return new RuleResult(this, fails ? RuleResult.Verdict.FAIL : RuleResult.Verdict.PASS, observed,
                message.toString());
    }

    /**
     * For a TTFT or E2E rule when both runs are scheduled (an open loop, or sessions: every side has send lags), the
     * same statistic from the intended send: what the rule judges there. TTFT from the actual send leaves out the
     * wait before the send, so an overloaded candidate that queues its requests would pass a TTFT gate while its
     * users wait many times longer; goodput, the SLO verdict, the sweep row and the capacity search all judge from
     * the intended send, and so does a gate. Empty for closed loops, or when one side has no lags (nothing to judge
     * it from on that side).
     */
    private Optional<MetricDelta> intendedTwin(RunComparison comparison) {
        CompareMetric twin = metric == CompareMetric.TTFT ? CompareMetric.TTFT_FROM_INTENDED
                : metric == CompareMetric.E2E ? CompareMetric.E2E_FROM_INTENDED : null;
        if (twin == null) return Optional.empty();
        return comparison.delta(twin, stat).filter(d -> !Double.isNaN(d.baseline()) && !Double.isNaN(d.candidate()));
    }

    /**
     * The rule with an absolute limit, where one follows from the relative one: {@code error_rate>1%} is a rise of
     * one percentage point, {@code error_rate>0.01}; other metrics have a unit of their own, so only that is said.
     */
    private String absoluteForm() {
        if (!relative) return "";
        if (metric == CompareMetric.ERROR_RATE) {
            return ": " + ruleKey() + operator.symbol() + new java.math.BigDecimal(Double.toString(threshold / 100.0))
                    .stripTrailingZeros().toPlainString() + " (a rise of " + formatPlain(Math.abs(threshold))
                    + " percentage point" + (Math.abs(threshold) == 1 ? "" : "s") + ")";
        }
        return " (in " + metric.unit() + ")";
    }

    private static String formatPlain(double value) {
        return new java.math.BigDecimal(Double.toString(value)).stripTrailingZeros().toPlainString();
    }

    private String formatChange(double value) {
        return relative ? String.format(Locale.ROOT, "%+.1f%%", value)
                : String.format(Locale.ROOT, "%+.3f %s", value, metric.unit());
    }

    private static String formatValue(double value) {
        return String.format(Locale.ROOT, "%.3f", value);
    }

    private static int indexOfOperator(String rule) {
        for (int i = 0; i < rule.length(); i++) {
            char c = rule.charAt(i);
            if (c == '<' || c == '>') return i;
        }
        return -1;
    }

    private static String validNames() {
        String perRequest = Arrays.stream(CompareMetric.values()).filter(CompareMetric::perRequest)
                .map(CompareMetric::key).collect(Collectors.joining(", "));
        String perRun = Arrays.stream(CompareMetric.values()).filter(m -> !m.perRequest())
                .map(CompareMetric::key).collect(Collectors.joining(", "));
        return perRequest + " (with _p50, _p90, _p99 or _mean), or " + perRun;
    }

    private static FailIfSyntaxException syntax(String rule, String problem) {
        return new FailIfSyntaxException(rule, "fail-if rule '" + rule + "': " + problem);
    }
}
