package io.llmperf4j.report.html;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.request;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.summary.RunEnvironment;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.xml.sax.InputSource;

/** Hand-made runs for the HTML report tests, and an XML parser for the page. */
final class ReportFixtures {

    static final String HOSTILE_MODEL = "evil/<script>alert(\"pwn\")</script>&'model'";
    static final String HOSTILE_MESSAGE = "<html><body>Bad Gateway & \"upstream\" <b>died</b>\u001b[0m</body></html>";
    static final RunEnvironment ENVIRONMENT =
            new RunEnvironment("OpenJDK 64-Bit Server VM", "Eclipse Adoptium", "17.0.12+7", "Linux", "6.1.0", "amd64", 8);
    static final long START_MICROS = 1_703_136_124_000_000L;
    static final long START_MILLIS = START_MICROS / 1000;

    private ReportFixtures() {
    }

    static BenchmarkSettings settings(String model) {
        Map<String, Object> sampling = new LinkedHashMap<>();
        sampling.put("temperature", 0.7);
        sampling.put("top_p", 0.95);
        return BenchmarkSettings.builder()
                .model(model)
                .meanInputTokens(550)
                .stddevInputTokens(150)
                .meanOutputTokens(150)
                .stddevOutputTokens(10)
                .numConcurrentRequests(4)
                .timeoutSeconds(600)
                .maxNumCompletedRequests(40)
                .additionalSamplingParams(sampling)
                .llmApi("openai")
                .metadata(Map.of("framework", "vllm"))
                .endpoint("http://localhost:8000/v1")
                .tokenizer("llama-2 (built in)")
                .promptMode("llmperf")
                .seed(11111L)
                .build();
    }

    /**
     * 40 requests, 4 at a time, over about 12 s: 36 succeed (TTFT 100–460 ms, 30 content events 20 ms apart, server
     * usage 30 tokens), 3 fail with HTTP 502 (hostile body), 1 is cancelled after 3 events.
     */
    static BenchmarkRun run(BenchmarkSettings settings) {
        List<RequestRecord> records = new ArrayList<>();
        long[] slotFree = new long[4];
        for (int i = 0; i < 40; i++) {
            int slot = i % 4;
            long startMicros = START_MICROS + slotFree[slot] / 1000 + 500;
            long ttft = (100 + 10L * (i % 37)) * MS;
            RequestRecord r;
            if (i == 7 || i == 19 || i == 31) {
                r = request(i).start(startMicros).e2e(40 * MS)
                        .failed(FailureKind.HTTP_STATUS, 502, HOSTILE_MESSAGE + (i == 31 ? " (again)" : "")).build();
            } else if (i == 39) {
                r = request(i).start(startMicros).evenEvents(ttft, 20 * MS, 3).e2e(ttft + 60 * MS)
                        .failed(FailureKind.CANCELLED, -1, "run ended").build();
            } else {
                r = request(i).start(startMicros).evenEvents(ttft, 20 * MS, 30).e2e(ttft + 29 * 20 * MS + MS)
                        .usage(560, 30).client(31).build();
            }
            records.add(r);
            slotFree[slot] += 500_000 + r.e2eNanos();
        }
        long end = 0;
        for (RequestRecord r : records) end = Math.max(end, (r.startEpochMicros() - START_MICROS) * 1000 + r.e2eNanos());
        long duration = end + MS;
        return new BenchmarkRun(settings, records, START_MILLIS, START_MILLIS + duration / 1_000_000, duration,
                records.size(), false);
    }

    /** Parses the page as XML (the report is well-formed XML by design); fails on any error. */
    static Document parse(String xml) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(false);
        factory.setValidating(false);
        factory.setExpandEntityReferences(false);
        factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        DocumentBuilder builder = factory.newDocumentBuilder();
        builder.setErrorHandler(new org.xml.sax.helpers.DefaultHandler() {
            @Override
            public void error(org.xml.sax.SAXParseException e) throws org.xml.sax.SAXParseException {
                throw e;
            }

            @Override
            public void fatalError(org.xml.sax.SAXParseException e) throws org.xml.sax.SAXParseException {
                throw e;
            }
        });
        return builder.parse(new InputSource(new StringReader(xml)));
    }

    /** Every {@code <svg ...>...</svg>} block of the page (charts are not nested). */
    static List<String> svgBlocks(String html) {
        List<String> blocks = new ArrayList<>();
        Matcher m = Pattern.compile("<svg[\\s>].*?</svg>", Pattern.DOTALL).matcher(html);
        while (m.find()) blocks.add(m.group());
        return blocks;
    }

    /** The block of the chart with this id. */
    static String svg(String html, String id) {
        return svgBlocks(html).stream().filter(s -> s.contains("id=\"" + id + "\"")).findFirst()
                .orElseThrow(() -> new AssertionError("no chart " + id));
    }
}
