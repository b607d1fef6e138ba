package io.llmperf4j.datasets;

import io.llmperf4j.datasets.manifest.WorkloadManifest;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.Tokenizers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SessionWorkloadsTest {
    private final Tokenizer cl100k = Tokenizers.jtokkit("cl100k_base");

    private static Workload plain(int n) {
        List<RequestSpec> specs = new ArrayList<>();
        for (int i = 0; i < n; i++) specs.add(new RequestSpec(i, "prompt " + i, 2, 5));
        return new Workload(Workload.FIXED, "test", null, "cl100k_base", 1, Map.of(), specs);
    }

    @Test
    void distributionsParseTheIssuesForms() {
        SplittableRandom r = new SplittableRandom(1);
        assertEquals(3, IntDistribution.parse("fixed:3").sample(r));
        assertEquals(3, IntDistribution.parse("3").sample(r));
        for (int i = 0; i < 100; i++) {
            long u = IntDistribution.parse("uniform:2,6").sample(r);
            assertTrue(u >= 2 && u <= 6, Long.toString(u));
            long n = IntDistribution.parse("normal:4,1,1,10").sample(r);
            assertTrue(n >= 1 && n <= 10, Long.toString(n));
        }
        assertEquals(0, IntDistribution.parse("fixed:0").sample(r), "a think time may be 0");
        String m = assertThrows(IllegalArgumentException.class, () -> IntDistribution.parse("poisson:3")).getMessage();
        assertTrue(m.contains("unknown distribution 'poisson'"), m);
        assertThrows(IllegalArgumentException.class, () -> IntDistribution.parse("uniform:5,2"));
    }

    @Test
    void requestsBecomeTurnsOfSessionsInOrder() {
        Workload grouped = SessionWorkloads.group(plain(7), IntDistribution.parse("fixed:3"), 1);
        List<String> ids = grouped.requests().stream().map(s -> s.inputs().sessionId() + "/" + s.inputs().turn())
                .toList();
        assertEquals(List.of("s0/0", "s0/1", "s0/2", "s1/0", "s1/1", "s1/2", "s2/0"), ids);
        assertEquals("prompt 4", grouped.requests().get(4).prompt(), "prompts stay where they were");
        assertEquals(3, grouped.generation().get("sessions"));
    }

    @Test
    void groupsGiveEachSessionOneSystemPromptOfExactlyPTokens() {
        Workload grouped = SessionWorkloads.group(plain(40), IntDistribution.parse("fixed:2"), 1);
        Workload prefixed = SessionWorkloads.withSystemPrompts(grouped, cl100k, 3, 64, 9);
        java.util.Set<String> prompts = new java.util.HashSet<>();
        for (int i = 0; i < 40; i += 2) {
            String system = prefixed.requests().get(i).inputs().systemPrompt();
            assertEquals(system, prefixed.requests().get(i + 1).inputs().systemPrompt(), "one per session");
            assertEquals(64, cl100k.count(system));
            prompts.add(system);
        }
        assertEquals(3, prompts.size(), "20 sessions draw all 3 groups");
    }

    @Test
    void manifestsRecordSessionsAndReplayThemByteForByte(@TempDir Path dir) throws IOException {
        Workload prefixed = SessionWorkloads.withSystemPrompts(
                SessionWorkloads.group(plain(5), IntDistribution.parse("uniform:1,3"), 4), cl100k, 2, 20, 4);
        Path file = dir.resolve("w.jsonl");
        WorkloadManifest.write(file, prefixed.requests(), prefixed.manifestHeader(Map.of()));
        WorkloadManifest back = WorkloadManifest.read(file);
        assertEquals(prefixed.requests(), back.requests());
        assertArrayEquals(Files.readAllBytes(file), back.toBytes());
        assertTrue(Files.readAllLines(file).get(1).contains("\"session_id\":\"s0\",\"turn\":0"));
        assertFalse(new String(new WorkloadManifest(back.header(), plain(1).requests()).toBytes(),
                java.nio.charset.StandardCharsets.UTF_8).contains("session_id"), "single requests keep the old lines");
    }

    @Test
    void shareGptSessionsPlayEveryTurnAndATruncatedFileIsOneCleanLine(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("sg.json"), "[{\"id\":\"a\",\"conversations\":["
                + "{\"from\":\"human\",\"value\":\"Hi there\"},{\"from\":\"gpt\",\"value\":\"Hello, how can I help?\"},"
                + "{\"from\":\"human\",\"value\":\"Tell me a joke\"},{\"from\":\"gpt\",\"value\":\"No.\"}]}]");
        Workload w = ShareGptDataset.load(file).sessions(cl100k, 3, 1, ShareGptOptions.defaults());
        assertEquals(List.of("Hi there", "Tell me a joke", "Hi there"), w.requests().stream().map(RequestSpec::prompt)
                .toList());
        assertEquals(List.of(0, 1, 0), w.requests().stream().map(r -> r.inputs().turn()).toList());
        assertEquals("a~1", w.requests().get(2).inputs().sessionId(), "a second pass is another session");
        assertEquals(cl100k.countWithoutSpecialTokens("No."), w.requests().get(1).maxTokens());

        Path cut = Files.writeString(dir.resolve("cut.json"), "[{\"id\":\"a\",\"conversations\":[{\"from\":\"hu");
        String m = assertThrows(DatasetFormatException.class, () -> ShareGptDataset.load(cut)).getMessage();
        assertTrue(m.contains("cut.json, $[0] (line 1, column"), m);
        assertFalse(m.contains("Source") || m.contains("REDACTED") || m.contains("\n"), m);
    }
}
