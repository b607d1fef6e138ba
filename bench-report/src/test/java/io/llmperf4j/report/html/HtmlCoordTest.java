package io.llmperf4j.report.html;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** SVG coordinates from integer hundredths: the text String.format gave, which the report's bytes depend on. */
class HtmlCoordTest {

    @Test
    void coordinatesPrintAsStringFormatPrintedThem() {
        double[] edges = {0, -0.0, 0.004, 0.005, -0.005, 0.01, -0.01, 0.05, 0.1, -0.1, 0.5, 0.995, 1.005, 2.675,
            99.999, -99.994, 123456.785, 1e9 + 0.25, -1e9 - 0.07, 1e13 + 0.33, 1e17, -3e18};
        for (double v : edges) assertEquals(byFormat(v), Html.coord(v), () -> "coord(" + v + ")");
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 200_000; i++) {
            double v = random.nextDouble(-2_000, 2_000);
            if (i % 4 == 0) v = Math.round(v * 1000) / 1000.0; // near the rounding boundary
            double w = v;
            assertEquals(byFormat(w), Html.coord(w), () -> "coord(" + w + ")");
        }
    }

    /** Html.coord as first written. */
    private static String byFormat(double value) {
        long hundredths = Math.round(value * 100);
        if (hundredths % 100 == 0) return Long.toString(hundredths / 100);
        String s = String.format(Locale.ROOT, "%.2f", hundredths / 100.0);
        return s.endsWith("0") ? s.substring(0, s.length() - 1) : s;
    }
}
