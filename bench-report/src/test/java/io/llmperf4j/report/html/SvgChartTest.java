package io.llmperf4j.report.html;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.report.html.SvgChart.Axis;
import io.llmperf4j.report.html.AxisLayout;
import io.llmperf4j.report.html.SvgChart.Series;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

class SvgChartTest {

    private static AxisLayout layout(Axis axis, double... values) {
        return AxisLayout.of(axis, values, 0, 100, false);
    }

    @Test
    void linearTicksAreNiceAndCoverTheData() {
        AxisLayout a = layout(Axis.linear("x", null), 3, 237);
        assertArrayEquals(new double[] {0, 50, 100, 150, 200, 250}, a.ticks, 1e-9);
        assertArrayEquals(new String[] {"0", "50", "100", "150", "200", "250"}, a.labels);
        assertEquals(0, a.lo);
        assertEquals(250, a.hi);

        AxisLayout small = layout(Axis.linear("x", null), 0.012, 0.047);
        assertEquals("0.010", small.labels[0]);
        assertTrue(small.lo <= 0.012 && small.hi >= 0.047);

        AxisLayout fixed = AxisLayout.of(Axis.linear("y", null).withRange(0, 1), new double[] {0.2, 0.4}, 100, 0, true);
        assertArrayEquals(new double[] {0, 0.2, 0.4, 0.6, 0.8, 1}, fixed.ticks, 1e-12);
        assertArrayEquals(new String[] {"0", "0.2", "0.4", "0.6", "0.8", "1.0"}, fixed.labels);

        AxisLayout big = layout(Axis.linear("tok/s", null).includingZero(), 12_345, 61_000);
        assertEquals("0", big.labels[0]);
        assertEquals("10k", big.labels[1]);
        assertEquals("70k", big.labels[big.labels.length - 1]);

        AxisLayout flat = layout(Axis.linear("x", null), 5, 5);
        assertTrue(flat.lo < 5 && flat.hi > 5);
    }

    @Test
    void logTicksAreOneTwoFivePerDecadeOrDecades() {
        AxisLayout a = layout(Axis.log("x", "ms"), 120, 4300);
        assertArrayEquals(new double[] {100, 200, 500, 1000, 2000, 5000}, a.ticks, 1e-9);
        assertArrayEquals(new String[] {"100", "200", "500", "1k", "2k", "5k"}, a.labels);
        AxisLayout wide = layout(Axis.log("x", "ms"), 0.3, 45_000);
        assertArrayEquals(new double[] {0.1, 1, 10, 100, 1000, 10_000, 100_000}, wide.ticks, 1e-9);
        assertEquals(50, wide.map(Math.sqrt(0.1 * 100_000)), 1e-9, "log scale maps the geometric middle to the middle");
    }

    @Test
    void givenTicksAreKept() {
        AxisLayout a = layout(Axis.linear("load", "concurrency").withTicks(1, 5, 10, 20, 50), 1, 50);
        assertArrayEquals(new double[] {1, 5, 10, 20, 50}, a.ticks);
        assertTrue(a.lo < 1 && a.hi > 50, "padded so the end points are not on the frame");
    }

    @Test
    void rendersWellFormedEscapedSvgWithGapsAndMarkers() throws Exception {
        String svg = SvgChart.builder("c1", "Latency <p90> & \"friends\"")
                .x(Axis.linear("time", "s"))
                .y(Axis.linear("TTFT", "ms").includingZero())
                .add(Series.line("a<b", "#123456", new double[] {0, 1, 2, 3, 4}, new double[] {1, 2, Double.NaN, 4, 5}))
                .add(Series.markers("pts", "#654321", new double[] {1, 2}, new double[] {3, 4})
                        .withTitles(new String[] {"x<1>", "y&2"}).withShape(SvgChart.Shape.CROSS))
                .mark(SvgChart.Marker.vertical(2.5, "mark's", "#f00", "marker-x"))
                .mark(SvgChart.Marker.horizontal(4.5, null, "#0f0", null))
                .build().toSvg();
        Document doc = ReportFixtures.parse(svg);
        var xp = XPathFactory.newInstance().newXPath();
        assertEquals("Latency <p90> & \"friends\"", xp.evaluate("/svg/title", doc));
        assertEquals("a<b", xp.evaluate("//g[@class='legend']/text[1]", doc));
        assertEquals("y&2", xp.evaluate("//g[@class='series']/path[2]/title", doc));
        String d = xp.evaluate("//g[@class='series'][1]/path/@d", doc);
        assertEquals(2, d.chars().filter(c -> c == 'M').count(), "the NaN breaks the line: " + d);
        assertEquals("2.5", xp.evaluate("//g[contains(@class,'marker-x')]/@data-value", doc));
        assertEquals("time (s)", xp.evaluate("//g[contains(@class,'axis-x')]/text[@class='axis-title']", doc));
        assertFalse(svg.contains("xmlns"), "inline SVG needs no namespace URL");
    }

    @Test
    void logAxisDropsNonPositiveValuesAndEmptyChartsSaySo() throws Exception {
        String svg = SvgChart.builder("c2", "log")
                .x(Axis.log("x", null))
                .y(Axis.linear("y", null))
                .add(Series.markers("m", "#000", new double[] {-1, 0, 10}, new double[] {1, 2, 3}))
                .build().toSvg();
        Document doc = ReportFixtures.parse(svg);
        assertEquals("1", XPathFactory.newInstance().newXPath().evaluate("count(//g[@class='series']/circle)", doc));
        String empty = SvgChart.builder("c3", "nothing").emptyMessage("No data <yet>").build().toSvg();
        assertTrue(empty.contains("No data &lt;yet&gt;"));
        ReportFixtures.parse(empty);
    }

    @Test
    void badArgumentsAreRefusedWithTheValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SvgChart.builder("1bad id", "t"));
        assertTrue(e.getMessage().contains("1bad id"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> Series.line("s", "#000", new double[] {1, 2}, new double[] {1}));
        assertThrows(IllegalArgumentException.class, () -> SvgChart.builder("ok", "t").size(100, 100));
    }

    @Test
    void htmlEscapingCoversQuotesControlsAndSurrogates() {
        assertEquals("&lt;a href=&quot;x&quot;&gt;&amp;&#39;", Html.esc("<a href=\"x\">&'"));
        assertEquals("bell\\u0007 nul\\u0000 tab\tok", Html.esc("bell\u0007 nul\u0000 tab\tok"));
        assertEquals("emoji \ud83d\ude00 lone \\ud83d!", Html.esc("emoji \ud83d\ude00 lone \ud83d!"));
        assertEquals("", Html.esc(null));
        assertEquals("abc\u2026", Html.truncate("abcdef", 3));
        assertEquals("12.5", Html.coord(12.499999));
        assertEquals("-3", Html.coord(-3.0));
    }
}
