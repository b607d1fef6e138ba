package io.llmperf4j.report.python;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.report.testutil.TestResources;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PythonReprTest {

    @ParameterizedTest(name = "repr({0}) = {1}")
    @CsvSource(delimiter = '|', value = {
            "0.1                    | 0.1",
            "1e-05                  | 1e-05",
            "0.0001                 | 0.0001",
            "0.00009999999999999999 | 9.999999999999999e-05",
            "123456789012345680.0   | 1.2345678901234568e+17",
            "1e16                   | 1e+16",
            "1.5e16                 | 1.5e+16",
            "9999999999999998.0     | 9999999999999998.0",
            "1e15                   | 1000000000000000.0",
            "5e-324                 | 5e-324",
            "-0.0                   | -0.0",
            "0.0                    | 0.0",
            "100.0                  | 100.0",
            "550                    | 550.0",
            "-2.5                   | -2.5",
            "1.7976931348623157e308 | 1.7976931348623157e+308",
            "0.30000000000000004    | 0.30000000000000004",
            "2.0E-3                 | 0.002",
            "1e22                   | 1e+22",
    })
    void pythonReprOfEdgeCases(double x, String expected) {
        assertEquals(expected, PythonRepr.ofFloat(x));
    }

    @Test
    void nonFiniteValuesPrintLikePython() {
        assertEquals("nan", PythonRepr.ofFloat(Double.NaN));
        assertEquals("inf", PythonRepr.ofFloat(Double.POSITIVE_INFINITY));
        assertEquals("-inf", PythonRepr.ofFloat(Double.NEGATIVE_INFINITY));
    }

    /** 2^-1017: the nearest 16-digit decimal does not round-trip, the one above (CPython's choice) does. */
    @Test
    void asymmetricGapAtPowerOfTwoTakesTheOtherNeighbour() {
        assertEquals("7.120236347223045e-307", PythonRepr.ofFloat(Math.scalb(1.0, -1017)));
    }

    /**
     * The search down from Double.toString's digits finds what counting up from one digit finds (the definition,
     * kept here as the oracle): random bit patterns, and seconds, milliseconds and rates as the result files hold
     * them.
     */
    @Test
    void searchingDownFromJavasDigitsEqualsCountingUpFromOne() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(42);
        for (int i = 0; i < 20_000; i++) {
            double x = Double.longBitsToDouble(random.nextLong() & Long.MAX_VALUE);
            if (!Double.isFinite(x) || x == 0) continue;
            assertSameDigits(x);
            long nanos = random.nextLong(1, 600_000_000_000L);
            for (double y : new double[] {nanos / 1e9, nanos / 1e6, 256 / (nanos / 1e9), nanos / 1e9 / 257}) {
                assertSameDigits(y);
            }
        }
        for (String x : new String[] {"8.41e21", "2e23", "5e-324", "1.7976931348623157e308", "2.2250738585072014E-308"}) {
            double y = Double.parseDouble(x);
            assertSameDigits(y);
        }
    }

    /**
     * The Schubfach digits (jackson-core's, Java 19's Double.toString) taken when they are 3 or more are the exact
     * search's, value for value; shorter ones are left to the search (for one-digit shortest decimals Schubfach picks
     * among two-digit ones too: 4.9E-324, where Python says 5e-324).
     */
    @Test
    void schubfachDigitsOfThreeOrMoreAreTheExactSearchs() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(15);
        int taken = 0;
        int checked = 0;
        for (int i = 0; i < 10_000; i++) {
            long nanos = random.nextLong(1, 600_000_000_000L);
            double[] values = {Double.longBitsToDouble(random.nextLong() & Long.MAX_VALUE), nanos / 1e9, nanos / 1e6,
                    256 / (nanos / 1e9), nanos / 1e9 / 257, random.nextDouble(), random.nextInt(100_000) / 100.0,
                    Math.scalb(1.0, random.nextInt(-1074, 1024)),
                    Math.nextUp(Math.scalb(1.0, random.nextInt(-1074, 1023)))};
            for (double x : values) {
                if (!Double.isFinite(x) || x == 0) continue;
                checked++;
                String fast = PythonRepr.shortestOfThreeOrMoreDigits(x);
                if (fast == null) continue;
                taken++;
                java.math.BigDecimal exact = PythonRepr.shortestDigits(x);
                assertEquals(0, new java.math.BigDecimal(fast.replace("e", "E")).compareTo(exact),
                        () -> x + ": " + fast + " against the exact search's " + exact);
                assertEquals(fast, PythonRepr.ofFloat(x));
            }
        }
        assertTrue(taken > checked * 9 / 10, taken + " of " + checked + " taken");
        assertEquals(null, PythonRepr.shortestOfThreeOrMoreDigits(Double.MIN_VALUE)); // Schubfach: 4.9E-324
        assertEquals(null, PythonRepr.shortestOfThreeOrMoreDigits(0.25)); // two digits: the exact search's
        assertEquals("5e-324", PythonRepr.ofFloat(Double.MIN_VALUE));
    }

    /** The digits as first searched for: counted up from one, each length rounded exactly. */
    private static java.math.BigDecimal shortestByCountingUp(double positive) {
        java.math.BigDecimal exact = new java.math.BigDecimal(positive);
        for (int digits = 1; digits <= 17; digits++) {
            java.math.BigDecimal nearest = exact.round(new java.math.MathContext(digits,
                    java.math.RoundingMode.HALF_EVEN));
            if (Double.parseDouble(nearest.toString()) == positive) return nearest;
            java.math.RoundingMode otherWay = nearest.compareTo(exact) < 0 ? java.math.RoundingMode.CEILING
                    : java.math.RoundingMode.FLOOR;
            java.math.BigDecimal other = exact.round(new java.math.MathContext(digits, otherWay));
            if (Double.parseDouble(other.toString()) == positive) return other;
        }
        throw new AssertionError(positive);
    }

    private static void assertSameDigits(double positive) {
        java.math.BigDecimal expected = shortestByCountingUp(positive);
        java.math.BigDecimal actual = PythonRepr.shortestDigits(positive);
        assertEquals(0, expected.compareTo(actual), () -> positive + ": " + expected + " against " + actual);
    }

    /** Every power of two, random bit patterns and magnitudes: expectations printed by CPython 3.11. */
    @Test
    void matchesCpythonOnThousandsOfValues() {
        int checked = 0;
        int javaToStringNotShortest = 0;
        for (String line : TestResources.text("python/float-repr-cases.txt").split("\n")) {
            if (line.isBlank() || line.startsWith("#")) continue;
            String[] parts = line.split(" ");
            double x = Double.longBitsToDouble(Long.parseUnsignedLong(parts[0], 16));
            assertEquals(parts[1], PythonRepr.ofFloat(x), () -> "bits " + parts[0]);
            checked++;
            if (significantDigits(Double.toString(x)) > significantDigits(parts[1])) javaToStringNotShortest++;
        }
        assertTrue(checked > 4000, "cases read: " + checked);
        // The reason for PythonRepr: Java 17's Double.toString is longer than needed for some of these.
        assertTrue(javaToStringNotShortest > 0, "expected some non-shortest Double.toString outputs");
    }

    @Test
    void intDictLikePythonStr() {
        Map<Integer, Long> counts = new LinkedHashMap<>();
        assertEquals("{}", PythonRepr.ofIntDict(counts));
        counts.put(500, 3L);
        counts.put(-1, 1L);
        assertEquals("{500: 3, -1: 1}", PythonRepr.ofIntDict(counts));
    }

    private static int significantDigits(String repr) {
        String mantissa = repr.toLowerCase().split("e")[0].replace("-", "").replace(".", "");
        mantissa = mantissa.replaceFirst("^0+", "").replaceFirst("0+$", "");
        return mantissa.length();
    }
}
