package io.llmperf4j.report.metrics;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A service-level objective for goodput: upper bounds on any subset of TTFT, TPOT and E2E latency (a null bound is
 * not checked). A request is good when it succeeded and meets every given bound (DistServe / vLLM definition):
 * <ul>
 *   <li>TTFT bound: the request must have a TTFT (content arrived) and it must be ≤ the bound;</li>
 *   <li>TPOT bound: TPOT ≤ the bound; a request with 0 or 1 output tokens has no decode phase and meets it (as
 *       in vLLM); a request whose token count is unknown, or that has no TPOT though n ≥ 2 (its response arrived
 *       whole, as without a stream: no decode pace was seen), cannot be judged and does not meet it;</li>
 *   <li>E2E bound: E2E ≤ the bound.</li>
 * </ul>
 *
 * @param ttft the TTFT bound, or null
 * @param tpot the TPOT bound, or null
 * @param e2e  the E2E latency bound, or null
 */
public record Slo(Duration ttft, Duration tpot, Duration e2e) {

    private static final Pattern TERM = Pattern.compile(
            "\\s*(ttft|tpot|e2e|e2el)\\s*[:=]\\s*(\\d+(?:\\.\\d*)?|\\.\\d+)\\s*(ns|us|µs|ms|s)?\\s*",
            Pattern.CASE_INSENSITIVE);

    public Slo {
        if (ttft == null && tpot == null && e2e == null) {
            throw new IllegalArgumentException("an SLO needs at least one bound (ttft, tpot or e2e)");
        }
        check("ttft", ttft);
        check("tpot", tpot);
        check("e2e", e2e);
    }

    /**
     * Parses comma-separated bounds such as {@code "ttft:500ms,tpot:50ms,e2e:10s"}. A bare number is in
     * milliseconds (vLLM's {@code --goodput ttft:500} convention); units ns, us, ms, s; {@code e2el} is accepted
     * for e2e. Each metric at most once.
     *
     * @throws IllegalArgumentException naming the offending term
     */
    public static Slo parse(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("SLO is empty; expected e.g. ttft:500ms,tpot:50ms,e2e:10s");
        }
        Duration ttft = null;
        Duration tpot = null;
        Duration e2e = null;
        for (String term : spec.split(",", -1)) {
            Matcher m = TERM.matcher(term);
            if (!m.matches()) {
                throw new IllegalArgumentException("SLO term '" + term.strip() + "' in '" + spec
                        + "' is not <metric>:<limit>; metrics ttft, tpot, e2e; limits like 500ms, 0.5s or 500 (ms)");
            }
            String name = m.group(1).toLowerCase(Locale.ROOT);
            Duration limit = duration(m.group(2), m.group(3));
            switch (name) {
                case "ttft" -> ttft = once(ttft, limit, name, spec);
                case "tpot" -> tpot = once(tpot, limit, name, spec);
                default -> e2e = once(e2e, limit, "e2e", spec);
            }
        }
        return new Slo(ttft, tpot, e2e);
    }

    /** Whether {@code request} is good under this SLO. */
    public boolean isMetBy(RequestMetrics request) {
        return request.succeeded() && meetsTtft(request) && meetsTpot(request) && meetsE2e(request);
    }

    /** True when there is no TTFT bound, or the request has a TTFT within it. */
    public boolean meetsTtft(RequestMetrics request) {
        return meetsTtft(request, 0);
    }

    /**
     * The same with the TTFT counted from the intended send: {@code lagNanos} (how late the request was sent after
     * its schedule, 0 in a closed loop) plus its TTFT.
     */
    public boolean meetsTtft(RequestMetrics request, long lagNanos) {
        return ttft == null
                || request.ttftNanos().isPresent() && lagNanos + request.ttftNanos().getAsLong() <= ttft.toNanos();
    }

    /** True when there is no TPOT bound, the request has at most one output token, or its TPOT is within it. */
    public boolean meetsTpot(RequestMetrics request) {
        if (tpot == null) return true;
        if (request.tpotNanos().isPresent()) return request.tpotNanos().getAsDouble() <= tpot.toNanos();
        // No TPOT: fine when there was nothing to decode; not when the token count, the TTFT or the pace is unknown.
        return request.outputTokens().isPresent() && request.outputTokens().getAsInt() <= 1;
    }

    /**
     * Whether {@code request}, ended early (cancelled), had already outlived a TTFT or E2E bound: its TTFT past the
     * TTFT bound, no content yet and its E2E past the TTFT bound, or its E2E past the E2E bound. TPOT cannot be known
     * before the end.
     */
    public boolean outlivedBy(RequestMetrics request) {
        return outlivedBy(request, 0);
    }

    /** The same with TTFT and E2E counted from the intended send, {@code lagNanos} earlier. */
    public boolean outlivedBy(RequestMetrics request, long lagNanos) {
        long elapsed = lagNanos + request.e2eNanos();
        boolean ttftOutlived = ttft != null && (request.ttftNanos().isPresent()
                ? lagNanos + request.ttftNanos().getAsLong() > ttft.toNanos() : elapsed > ttft.toNanos());
        return ttftOutlived || e2e != null && elapsed > e2e.toNanos();
    }

    /** True when there is no E2E bound or the request's E2E is within it. */
    public boolean meetsE2e(RequestMetrics request) {
        return meetsE2e(request, 0);
    }

    /** The same with the E2E counted from the intended send, {@code lagNanos} before the actual one. */
    public boolean meetsE2e(RequestMetrics request, long lagNanos) {
        return e2e == null || lagNanos + request.e2eNanos() <= e2e.toNanos();
    }

    /** A compact description, e.g. {@code "TTFT <= 500 ms, E2E <= 10000 ms"}. */
    public String describe() {
        List<String> parts = new ArrayList<>(3);
        if (ttft != null) parts.add("TTFT <= " + millis(ttft) + " ms");
        if (tpot != null) parts.add("TPOT <= " + millis(tpot) + " ms");
        if (e2e != null) parts.add("E2E <= " + millis(e2e) + " ms");
        return String.join(", ", parts);
    }

    private static String millis(Duration d) {
        return BigDecimal.valueOf(d.toNanos(), 6).stripTrailingZeros().toPlainString();
    }

    private static Duration duration(String number, String unit) {
        BigDecimal value = new BigDecimal(number);
        int nanosShift = switch (unit == null ? "ms" : unit.toLowerCase(Locale.ROOT)) {
            case "ns" -> 0;
            case "us", "µs" -> 3;
            case "s" -> 9;
            default -> 6;
        };
        return Duration.ofNanos(value.movePointRight(nanosShift).setScale(0, java.math.RoundingMode.HALF_UP)
                .longValueExact());
    }

    private static Duration once(Duration previous, Duration limit, String name, String spec) {
        if (previous != null) throw new IllegalArgumentException("SLO '" + spec + "' gives " + name + " twice");
        return limit;
    }

    private static void check(String name, Duration bound) {
        if (bound != null && (bound.isNegative() || bound.isZero())) {
            throw new IllegalArgumentException("SLO " + name + " bound (" + bound + ") must be > 0");
        }
    }
}
