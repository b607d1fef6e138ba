package io.llmperf4j.report.python;

import com.fasterxml.jackson.core.io.NumberOutput;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Python's {@code repr()}/{@code str()} of the values llmperf prints or writes, so our output matches its bytes.
 *
 * <p>Floats: Python (and numpy's float64 {@code str}) print the SHORTEST digit string that parses back to the
 * same double, the nearest one when several are that short. Java 17's {@link Double#toString} does not always
 * give the shortest (JDK-4511638, fixed only in Java 19), so shorter digits are searched for below its own with
 * exact {@link BigDecimal} arithmetic. Layout: fixed notation when the decimal exponent is in [-4, 16), always with a
 * fractional part ({@code 100.0}); otherwise {@code 1e-05}, {@code 1.5e+16} (sign and at least two exponent
 * digits, no {@code .0} on a one-digit mantissa).
 */
public final class PythonRepr {

    private PythonRepr() {
    }

    /**
     * {@code repr(x)} of a Python float: {@code 0.1}, {@code 1e-05}, {@code 100.0}, {@code -0.0}, and
     * {@code nan}, {@code inf}, {@code -inf} for the non-finite values (JSON spells those differently; see
     * {@link PythonJsonWriter}).
     */
    public static String ofFloat(double x) {
        if (Double.isNaN(x)) return "nan";
        if (Double.isInfinite(x)) return x > 0 ? "inf" : "-inf";
        if (x == 0.0) return (Double.doubleToRawLongBits(x) < 0) ? "-0.0" : "0.0";
        String sign = x < 0 ? "-" : "";
        double positive = Math.abs(x);
        String fast = shortestOfThreeOrMoreDigits(positive);
        return sign + (fast != null ? fast : layout(shortestDigits(positive)));
    }

    /**
     * Python's layout of {@code positive}'s shortest round-trip decimal from the Schubfach algorithm (Java 19's
     * {@link Double#toString}, shipped in jackson-core for Java 17), when that has 3 digits or more; null otherwise
     * (then {@link #shortestDigits} searches with exact arithmetic). Schubfach picks, among the decimals that parse
     * back to the value, those of the least length m, and of them the nearest, ties to an even last digit; but for
     * m = 1 it picks among those of 1 and 2 digits, which Python does not. Its 3 digits or more mean m ≥ 3, and then
     * its pick is the exact search's: the nearest m-digit decimal when that parses back, else the one on the other
     * side, the nearest that does (the decimals that parse back form an interval around the value). Latencies and
     * rates are nearly all of 3 digits or more. The exact search cost a fresh JVM 0.3 ms a float (its
     * {@link BigDecimal} expansion, roundings and parses run interpreted, then compiled: 0.76 s of CPU for 2,500
     * floats, a result folder's), this path a small fraction of that.
     */
    static String shortestOfThreeOrMoreDigits(double positive) {
        String schubfach = NumberOutput.toString(positive, true);
        int e = schubfach.indexOf('E');
        int mantissaEnd = e < 0 ? schubfach.length() : e;
        int point = schubfach.indexOf('.');
        // value = 0.<digits> x 10^pointPosition
        int pointPosition = (point < 0 ? mantissaEnd : point)
                + (e < 0 ? 0 : Integer.parseInt(schubfach, e + 1, schubfach.length(), 10));
        StringBuilder digits = new StringBuilder(mantissaEnd);
        for (int i = 0; i < mantissaEnd; i++) {
            char c = schubfach.charAt(i);
            if (c == '.') continue;
            if (c < '0' || c > '9') return null; // not the form expected: leave it to the exact search
            if (digits.length() == 0 && c == '0') {
                pointPosition--; // a leading zero: the first significant digit is further right
                continue;
            }
            digits.append(c);
        }
        int n = digits.length();
        while (n > 0 && digits.charAt(n - 1) == '0') n--;
        if (n < 3) return null;
        digits.setLength(n);
        return layout(digits.toString(), pointPosition);
    }

    /**
     * {@code str(d)} of a Python dict of int keys to int values, in the map's iteration order:
     * {@code {}}, {@code {500: 3, -1: 1}}.
     */
    public static String ofIntDict(Map<? extends Number, ? extends Number> dict) {
        StringJoiner joiner = new StringJoiner(", ", "{", "}");
        dict.forEach((k, v) -> joiner.add(k.longValue() + ": " + v.longValue()));
        return joiner.toString();
    }

    /**
     * The shortest decimal that round-trips to {@code positive}; among those, the nearest to it. Some decimal of
     * n digits round-trips exactly when the nearest n-digit rounding of the value or the one on its other side
     * does (the values that parse back to {@code positive} form an interval around it), and if one of n digits
     * does, one of n + 1 does too. So the search starts below {@link Double#toString}'s digits, which round-trip
     * (Java 17's are sometimes longer than the shortest, never shorter), and goes down while a shorter one exists:
     * one or two steps for most values, where counting up from one digit took up to 17 exact roundings.
     */
    static BigDecimal shortestDigits(double positive) {
        BigDecimal exact = new BigDecimal(positive);
        int digits = significantDigits(Double.toString(positive));
        while (digits > 1 && roundTripping(exact, positive, digits - 1) != null) digits--;
        BigDecimal shortest = roundTripping(exact, positive, digits);
        if (shortest == null) throw new AssertionError("Double.toString's " + digits + " digits of " + positive
                + " do not round-trip");
        return shortest;
    }

    /** The nearest {@code digits}-digit decimal to {@code exact} that round-trips, or null when none does. */
    private static BigDecimal roundTripping(BigDecimal exact, double value, int digits) {
        BigDecimal nearest = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
        if (roundTrips(nearest, value)) return nearest;
        // Just above a power of two the gap below is half the gap above, so the nearest candidate can miss
        // while the neighbour on the other side still round-trips.
        RoundingMode otherWay = nearest.compareTo(exact) < 0 ? RoundingMode.CEILING : RoundingMode.FLOOR;
        BigDecimal other = exact.round(new MathContext(digits, otherWay));
        return roundTrips(other, value) ? other : null;
    }

    /** Significant digits of a positive {@link Double#toString}: {@code 0.0012} has 2, {@code 1.5E-5} 2, {@code 100.0} 1. */
    static int significantDigits(String javaText) {
        int end = javaText.indexOf('E');
        if (end < 0) end = javaText.length();
        int first = -1;
        int last = -1;
        int count = 0;
        for (int i = 0; i < end; i++) {
            char c = javaText.charAt(i);
            if (c < '0' || c > '9') continue;
            if (first < 0 && c == '0') continue;
            if (first < 0) first = i;
            count++;
            if (c != '0') last = count;
        }
        return Math.max(1, last);
    }

    private static boolean roundTrips(BigDecimal candidate, double value) {
        // Double.parseDouble is correctly rounded, like CPython's float().
        return Double.parseDouble(candidate.toString()) == value;
    }

    /** Python's float_repr_style 'short' layout of a positive decimal. */
    private static String layout(BigDecimal positive) {
        BigDecimal stripped = positive.stripTrailingZeros();
        String digits = stripped.unscaledValue().toString();
        return layout(digits, digits.length() - stripped.scale());
    }

    /** The layout of 0.{@code digits} x 10^{@code pointPosition}, {@code digits} without leading or trailing zeros. */
    private static String layout(String digits, int pointPosition) {
        boolean exponentForm = pointPosition < -3 || pointPosition > 16;
        StringBuilder out = new StringBuilder(digits.length() + 8);
        if (exponentForm) {
            out.append(digits.charAt(0));
            if (digits.length() > 1) out.append('.').append(digits, 1, digits.length());
            int exponent = pointPosition - 1;
            out.append(exponent < 0 ? "e-" : "e+");
            int magnitude = Math.abs(exponent);
            if (magnitude < 10) out.append('0');
            out.append(magnitude);
        } else if (pointPosition <= 0) {
            out.append("0.");
            out.append("0".repeat(-pointPosition));
            out.append(digits);
        } else if (pointPosition < digits.length()) {
            out.append(digits, 0, pointPosition).append('.').append(digits, pointPosition, digits.length());
        } else {
            out.append(digits).append("0".repeat(pointPosition - digits.length())).append(".0");
        }
        return out.toString();
    }
}
