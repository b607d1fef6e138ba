package io.llmperf4j.report.python;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.llmperf4j.report.testutil.TestResources;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PythonJsonWriterTest {

    /** llmperf's own summary file, parsed and written again, comes out byte for byte (key order included). */
    @Test
    void rewritesLlmperfSummaryExampleByteForByte() {
        String original = TestResources.text("llmperf-examples/summary_anyscale_70b.json");
        Map<String, Object> parsed = TestResources.jsonObject("llmperf-examples/summary_anyscale_70b.json");
        assertEquals(original, PythonJsonWriter.toJson(parsed));
        assertFalse(original.endsWith("\n"));
    }

    @Test
    void rewritesLlmperfIndividualExampleByteForByte() {
        String original = TestResources.text("llmperf-examples/individual_anyscale_70b.json");
        List<Map<String, Object>> parsed =
                TestResources.jsonArrayOfObjects("llmperf-examples/individual_anyscale_70b.json");
        assertEquals(original, PythonJsonWriter.toJson(parsed));
    }

    /** An array written element by element is the same text, empty and one-element arrays included. */
    @Test
    void writesAnArrayElementByElementAsTheWholeDocument() throws Exception {
        String original = TestResources.text("llmperf-examples/individual_anyscale_70b.json");
        List<Map<String, Object>> parsed =
                TestResources.jsonArrayOfObjects("llmperf-examples/individual_anyscale_70b.json");
        java.io.StringWriter out = new java.io.StringWriter();
        PythonJsonWriter.writeArray(parsed, m -> m, out);
        assertEquals(original, out.toString());
        for (List<?> list : List.of(List.of(), List.of(1.5), List.of(List.of(), Map.of("a", List.of(1, 2))))) {
            java.io.StringWriter one = new java.io.StringWriter();
            PythonJsonWriter.writeArray(list, x -> x, one);
            assertEquals(PythonJsonWriter.toJson(list), one.toString());
        }
    }

    /** Golden files written by Python's json.dump: NaN, nested lists, null, true and \\u escapes. */
    @Test
    void rewritesPythonGoldenFilesByteForByte() {
        for (String name : List.of("golden/mixed_summary.json", "golden/allfailed_summary.json",
                "golden/single_summary.json")) {
            assertEquals(TestResources.text(name), PythonJsonWriter.toJson(TestResources.jsonObject(name)), name);
        }
    }

    @Test
    void layoutMatchesPythonIndent4() {
        Map<String, Object> inner = new LinkedHashMap<>();
        inner.put("x", List.of(1, 2.5));
        inner.put("empty_list", List.of());
        inner.put("empty_dict", Map.of());
        Map<String, Object> top = new LinkedHashMap<>();
        top.put("a", inner);
        top.put("b", null);
        top.put("c", false);
        assertEquals("{\n"
                + "    \"a\": {\n"
                + "        \"x\": [\n"
                + "            1,\n"
                + "            2.5\n"
                + "        ],\n"
                + "        \"empty_list\": [],\n"
                + "        \"empty_dict\": {}\n"
                + "    },\n"
                + "    \"b\": null,\n"
                + "    \"c\": false\n"
                + "}", PythonJsonWriter.toJson(top));
        assertEquals("[]", PythonJsonWriter.toJson(List.of()));
        assertEquals("{}", PythonJsonWriter.toJson(Map.of()));
    }

    @Test
    void numbersKeepPythonIntAndFloatForms() {
        List<Object> values = new ArrayList<>(Arrays.asList(550, 550L, 550.0, 1e-05, Double.NaN,
                Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, new BigInteger("123456789012345678901234567890")));
        assertEquals("[\n    550,\n    550,\n    550.0,\n    1e-05,\n    NaN,\n    Infinity,\n    -Infinity,\n"
                + "    -0.0,\n    123456789012345678901234567890\n]", PythonJsonWriter.toJson(values));
    }

    @Test
    void stringsAreAsciiEscapedLikeEnsureAscii() {
        String text = "q\" b\\ \b\f\n\r\t \u0001 \u007f caf\u00e9 \u4e2d \ud83d\ude00 /";
        assertEquals("\"q\\\" b\\\\ \\b\\f\\n\\r\\t \\u0001 \\u007f caf\\u00e9 \\u4e2d \\ud83d\\ude00 /\"",
                PythonJsonWriter.toJson(text));
    }

    @Test
    void rejectsTypesPythonCouldNotWriteEither() {
        assertThrows(IllegalArgumentException.class, () -> PythonJsonWriter.toJson(new Object()));
        assertThrows(IllegalArgumentException.class, () -> PythonJsonWriter.toJson(Map.of(1, "x")));
    }
}
