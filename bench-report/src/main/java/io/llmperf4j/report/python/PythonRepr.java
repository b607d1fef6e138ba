package io.llmperf4j.report.python;

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
 * give the shortest (JDK-4511638, fixed only in Java 19), so the digits are searched here with exact
 * {@link BigDecimal} arithmetic. Layout: fixed notation when the decimal exponent is in [-4, 16), always with a
 * fractional part ({@code 100.0}); otherwise {@code 1e-05}, {@code 1.5e+16} (sign and at least two exponent
 * digits, no {@code .0} on a one-digit mantissa).
 */
public final class PythonRepr {

    /** 17 significant digits always identify a double uniquely. */
    private static final int MAX_DIGITS = 17;

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
        return sign + layout(shortestDigits(Math.abs(x)));
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

    /** The shortest decimal that round-trips to {@code positive}; among those, the nearest to it. */
    private static BigDecimal shortestDigits(double positive) {
        BigDecimal exact = new BigDecimal(positive);
        for (int digits = 1; digits <= MAX_DIGITS; digits++) {
            BigDecimal nearest = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
            if (roundTrips(nearest, positive)) return nearest;
            // Just above a power of two the gap below is half the gap above, so the nearest candidate can miss
            // while the neighbour on the other side still round-trips.
            RoundingMode otherWay = nearest.compareTo(exact) < 0 ? RoundingMode.CEILING : RoundingMode.FLOOR;
            BigDecimal other = exact.round(new MathContext(digits, otherWay));
            if (roundTrips(other, positive)) return other;
        }
        throw new AssertionError("no " + MAX_DIGITS + "-digit decimal round-trips for " + positive);
    }

    private static boolean roundTrips(BigDecimal candidate, double value) {
        // Double.parseDouble is correctly rounded, like CPython's float().
        return Double.parseDouble(candidate.toString()) == value;
    }

    /** Python's float_repr_style 'short' layout of a positive decimal. */
    private static String layout(BigDecimal positive) {
        BigDecimal stripped = positive.stripTrailingZeros();
        String digits = stripped.unscaledValue().toString();
        // value = 0.<digits> x 10^pointPosition
        int pointPosition = digits.length() - stripped.scale();
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
