package io.llmperf4j.datasets.manifest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.datasets.Corpus;
import io.llmperf4j.datasets.DatasetFormatException;
import io.llmperf4j.datasets.SyntheticWorkload;
import io.llmperf4j.datasets.Workload;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizers;
import io.llmperf4j.tokenize.prompt.LengthDistribution;
import io.llmperf4j.tokenize.prompt.PromptMode;
import io.llmperf4j.tokenize.prompt.PromptParams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkloadManifestTest {
    private static final PromptParams PARAMS = PromptParams.llmperfDefaults(PromptMode.EXACT).withRequestCount(40)
            .withOutputLengths(LengthDistribution.uniform(64, 256));

    @TempDir
    Path dir;

    @Test
    void theSameSeedAndParamsGiveByteIdenticalFiles() throws Exception {
        Path first = dir.resolve("a/workload.jsonl");
        Path second = dir.resolve("b/workload.jsonl");
        for (Path file : List.of(first, second)) {
            // a new tokenizer-independent generator each time, as two separate runs would have
            Workload workload = new SyntheticWorkload(Tokenizers.jtokkit("cl100k_base"), Corpus.defaultCorpus()).generate(PARAMS);
            WorkloadManifest.write(file, workload.requests(), workload.manifestHeader(samplingParams()));
        }
        assertArrayEquals(Files.readAllBytes(first), Files.readAllBytes(second));
        Workload other = new SyntheticWorkload(Tokenizers.jtokkit("cl100k_base"), Corpus.defaultCorpus())
                .generate(PARAMS.withSeed(11112));
        Path third = dir.resolve("c.jsonl");
        WorkloadManifest.write(third, other.requests(), other.manifestHeader(samplingParams()));
        assertTrue(!java.util.Arrays.equals(Files.readAllBytes(first), Files.readAllBytes(third)));
    }

    @Test
    void readGivesBackExactlyWhatWasWritten() throws Exception {
        Workload workload = new SyntheticWorkload(Tokenizers.jtokkit("cl100k_base"), Corpus.defaultCorpus()).generate(PARAMS);
        ManifestHeader header = workload.manifestHeader(samplingParams());
        Path file = dir.resolve("w.jsonl");
        WorkloadManifest.write(file, workload.requests(), header);

        WorkloadManifest read = WorkloadManifest.read(file);
        assertEquals(header, read.header());
        assertEquals(workload.requests(), read.requests());
        Path again = dir.resolve("again.jsonl");
        read.write(again);
        assertArrayEquals(Files.readAllBytes(file), Files.readAllBytes(again));
    }

    @Test
    void theFormatIsOneHeaderLineThenOneLinePerRequest() throws Exception {
        Map<String, Object> generation = new LinkedHashMap<>();
        generation.put("max_tokens", 16);
        generation.put("request_count", 2);
        ManifestHeader header = new ManifestHeader("fixed", "jtokkit:cl100k_base", 0, "prompt", "ab12", generation, samplingParams());
        List<RequestSpec> requests = List.of(new RequestSpec(0, "Hi \"there\"\n😀 你好", 9, 16), new RequestSpec(1, "x", 1, 16));
        Path file = dir.resolve("f.jsonl");
        WorkloadManifest.write(file, requests, header);
        String requestLines = "{\"index\":0,\"prompt\":\"Hi \\\"there\\\"\\n😀 你好\",\"number_input_tokens\":9,\"max_tokens\":16}\n"
                + "{\"index\":1,\"prompt\":\"x\",\"number_input_tokens\":1,\"max_tokens\":16}\n";
        String digest = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(requestLines.getBytes(StandardCharsets.UTF_8)));
        assertEquals("{\"format\":\"llmperf4j-workload\",\"version\":1,\"kind\":\"fixed\",\"tokenizer\":\"jtokkit:cl100k_base\","
                + "\"seed\":0,\"source\":\"prompt\",\"source_sha256\":\"ab12\",\"generation\":{\"max_tokens\":16,"
                + "\"request_count\":2},\"sampling_params\":{\"temperature\":0.7,\"top_p\":0.95,\"stop\":[\"</s>\"],"
                + "\"seed\":12345678901},\"request_count\":2,\"requests_sha256\":\"" + digest + "\"}\n" + requestLines,
                Files.readString(file, StandardCharsets.UTF_8));
        assertEquals(requests, WorkloadManifest.read(file).requests());
    }

    @Test
    void malformedManifestsNameTheLine() throws Exception {
        Path good = dir.resolve("good.jsonl");
        ManifestHeader header = new ManifestHeader("fixed", "t", 0, "prompt", null, Map.of(), Map.of());
        WorkloadManifest.write(good, List.of(new RequestSpec(0, "a", 1, 2), new RequestSpec(1, "b", 1, 2)), header);
        String text = Files.readString(good);
        String[] lines = text.split("\n");

        assertError(lines[0] + "\n" + lines[1] + "\n{\"index\":1,\"prompt\":\n", "line 3: not valid JSON: ");
        assertError(lines[0] + "\n" + lines[1] + "\n" + lines[1] + "\n", "line 3: index 0 where 1 was expected");
        assertError(lines[0] + "\n" + lines[1] + "\n{\"index\":1,\"prompt\":\"b\",\"max_tokens\":2}\n",
                "line 3: missing field \"number_input_tokens\"");
        assertError(lines[0] + "\n" + lines[1].replace("}", ",\"extra\":1}") + "\n" + lines[2] + "\n", "line 2: unknown field \"extra\"");
        assertError(lines[0] + "\n" + lines[1].replace("\"max_tokens\":2", "\"max_tokens\":0") + "\n" + lines[2] + "\n",
                "line 2: max_tokens 0 must be a positive int");
        assertError(lines[0] + "\n" + lines[1] + "\n", "line 1: request_count is 2 but the file holds 1 requests (is it truncated?)");
        assertError(lines[0] + "\n" + lines[1] + "\n" + lines[2], "line 3: the last line has no final newline (is the file truncated?)");
        assertError(lines[0] + "\n" + lines[1] + "\n" + lines[2].replace("\"b\"", "\"c\"") + "\n",
                "line 1: requests_sha256 does not match the request lines");
        assertError(lines[0] + "\n" + lines[1] + "\n\n" + lines[2] + "\n", "line 3: the line is empty");
        assertError("{\"format\":\"other\"}\n", "line 1: missing field \"version\"");
        assertError(lines[0].replace("llmperf4j-workload", "other") + "\n" + lines[1] + "\n" + lines[2] + "\n",
                "line 1: format is \"other\", not \"llmperf4j-workload\": not a workload manifest");
        assertError("{\"note\":1," + lines[0].substring(1) + "\n" + lines[1] + "\n" + lines[2] + "\n",
                "line 1: unknown field \"note\"");
        assertError(lines[0].replace("\"version\":1", "\"version\":2") + "\n" + lines[1] + "\n" + lines[2] + "\n",
                "line 1: version 2 is not supported (this build reads 1)");
        assertError("", "line 1: the file is empty; a manifest starts with its header line");

        // without its digest, an edited manifest is accepted
        String edited = lines[0].replaceAll(",\"requests_sha256\":\"[0-9a-f]+\"", "") + "\n" + lines[1] + "\n"
                + lines[2].replace("\"b\"", "\"c\"") + "\n";
        Path file = Files.writeString(dir.resolve("edited.jsonl"), edited);
        assertEquals("c", WorkloadManifest.read(file).requests().get(1).prompt());

        Path binary = Files.write(dir.resolve("bin.jsonl"), new byte[] {'{', '\n', (byte) 0xFF, '\n'});
        assertEquals("Workload manifest " + binary + ", line 2: not UTF-8 text (byte 2)",
                assertThrows(DatasetFormatException.class, () -> WorkloadManifest.read(binary)).getMessage());
    }

    private void assertError(String text, String expectedStart) throws Exception {
        Path file = Files.writeString(Files.createTempFile(dir, "bad", ".jsonl"), text, StandardCharsets.UTF_8);
        DatasetFormatException e = assertThrows(DatasetFormatException.class, () -> WorkloadManifest.read(file));
        assertTrue(e.getMessage().startsWith("Workload manifest " + file + ", " + expectedStart), e.getMessage());
        assertEquals(file, e.file());
    }

    private static Map<String, Object> samplingParams() {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("temperature", 0.7);
        params.put("top_p", 0.95);
        params.put("stop", List.of("</s>"));
        params.put("seed", 12345678901L);
        return params;
    }
}
