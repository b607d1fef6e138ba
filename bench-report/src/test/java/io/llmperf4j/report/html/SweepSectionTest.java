package io.llmperf4j.report.html;

import static io.llmperf4j.report.html.ReportFixtures.ENVIRONMENT;
import static io.llmperf4j.report.html.ReportFixtures.parse;
import static io.llmperf4j.report.html.ReportFixtures.svg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.report.metrics.MetricsConfig;
import io.llmperf4j.report.metrics.RunMetrics;
import java.util.List;
import java.util.OptionalInt;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

class SweepSectionTest {

    private static final XPath XP = XPathFactory.newInstance().newXPath();

    /** The seed script's sweep 1, 5, 10, 20, 50: saturates at 20, TTFT jumps at 20, fails at 50 (nothing succeeds). */
    static SweepReport sweep() {
        List<SweepLevel> levels = List.of(
                new SweepLevel("concurrency 1", 1, "concurrency", 50, 50, 49.1, 0.28, 210, 250, 3000, 3100),
                new SweepLevel("concurrency 5", 5, "concurrency", 50, 50, 230.0, 1.4, 230, 300, 3200, 3400),
                new SweepLevel("concurrency 10", 10, "concurrency", 50, 50, 420.0, 2.6, 260, 420, 3500, 3900),
                new SweepLevel("concurrency 20", 20, "concurrency", 50, 50, 430.0, 2.7, 900, 3100, 6100, 9000),
                new SweepLevel("concurrency <50>", 50, "concurrency", 0, 50, Double.NaN, Double.NaN, Double.NaN,
                        Double.NaN, Double.NaN, Double.NaN));
        return new SweepReport(levels, OptionalInt.of(3), OptionalInt.of(3), OptionalInt.of(4),
                List.of("saturation point: concurrency 20 (output tok/s +2.4 % over concurrency 10; threshold 5.0 %)"));
    }

    private static String page() {
        BenchmarkRun run = ReportFixtures.run(ReportFixtures.settings("m"));
        return HtmlReport.render(run, RunMetrics.of(run, MetricsConfig.DEFAULT), "0.1.0-test", ENVIRONMENT,
                HtmlReportOptions.DEFAULT.withSweep(sweep()));
    }

    @Test
    void markersSitOnTheirLevelsPoint() throws Exception {
        String html = page();
        Document tps = parse(svg(html, "sweep-throughput"));
        assertEquals("20", XP.evaluate("//g[contains(@class,'marker-saturation')]/@data-value", tps));
        String markerX = XP.evaluate("//g[contains(@class,'marker-saturation')]/line/@x1", tps);
        assertEquals(XP.evaluate("//g[contains(@class,'sweep-tps')]/circle[@data-x='20']/@cx", tps), markerX);
        assertEquals(XP.evaluate("//g[contains(@class,'highlight')]/circle/@cx", tps), markerX);
        assertEquals("50", XP.evaluate("//g[contains(@class,'marker-failing')]/@data-value", tps));
        assertEquals("4", XP.evaluate("count(//g[contains(@class,'sweep-tps')]/circle)", tps),
                "the level where nothing succeeded has no point");

        Document ttft = parse(svg(html, "sweep-ttft"));
        assertEquals("20", XP.evaluate("//g[contains(@class,'marker-redline')]/@data-value", ttft));
        assertEquals(XP.evaluate("//g[contains(@class,'sweep-ttft-p90')]/circle[@data-x='20']/@cx", ttft),
                XP.evaluate("//g[contains(@class,'marker-redline')]/line/@x1", ttft));
        assertEquals("3100", XP.evaluate("//g[contains(@class,'highlight')]/circle/@data-y", ttft));
        parse(svg(html, "sweep-e2e"));
    }

    @Test
    void tableFlagsTheVerdictRows() throws Exception {
        Document doc = parse(page());
        assertEquals("saturation redline", XP.evaluate("//table[@class='sweep']/tbody/tr[@data-index='3']/@class", doc));
        assertEquals("failing", XP.evaluate("//table[@class='sweep']/tbody/tr[@data-index='4']/@class", doc));
        assertEquals("", XP.evaluate("//table[@class='sweep']/tbody/tr[@data-index='0']/@class", doc));
        assertEquals("concurrency <50>", XP.evaluate("//table[@class='sweep']/tbody/tr[5]/td[1]", doc));
        assertEquals("0 / 50", XP.evaluate("//table[@class='sweep']/tbody/tr[5]/td[3]", doc));
        assertEquals("-", XP.evaluate("//table[@class='sweep']/tbody/tr[5]/td[5]", doc));
        String section = XP.evaluate("//section[@id='sweep']", doc);
        assertTrue(section.contains("Saturation point: concurrency 20"), section);
        assertTrue(section.contains("threshold 5.0 %"), section);
    }

    @Test
    void sweepsAreValidated() {
        SweepLevel a = new SweepLevel("1", 1, "concurrency", 1, 1, 1, 1, 1, 1, 1, 1);
        SweepLevel b = new SweepLevel("2 req/s", 2, "req/s", 1, 1, 1, 1, 1, 1, 1, 1);
        assertThrows(IllegalArgumentException.class, () -> SweepReport.of(List.of()));
        assertThrows(IllegalArgumentException.class, () -> SweepReport.of(List.of(a, b)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new SweepReport(List.of(a),
                OptionalInt.of(1), OptionalInt.empty(), OptionalInt.empty(), List.of()));
        assertEquals("saturationIndex (1) must be in [0, 1)", e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> new SweepLevel("x", 1, "c", 2, 1, 0, 0, 0, 0, 0, 0));
    }
}
