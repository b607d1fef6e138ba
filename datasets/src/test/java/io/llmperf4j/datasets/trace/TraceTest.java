package io.llmperf4j.datasets.trace;

import io.llmperf4j.datasets.DatasetFormatException;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.Tokenizers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class TraceTest {

    static final String MOONCAKE = """
            {"timestamp": 1000, "input_length": 1100, "output_length": 5, "hash_ids": [0, 1, 2]}
            {"timestamp": 1300, "input_length": 1500, "output_length": 6, "hash_ids": [0, 1, 3]}
            {"timestamp": 1600, "input_length": 700, "output_length": 7, "hash_ids": [0, 4]}
            {"timestamp": 1900, "input_length": 1100, "output_length": 8, "hash_ids": [5, 6, 7]}
            """;

    private static Path write(Path dir, String name, String text) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return f;
    }

    @Test
    void mooncakeIsRelativeAndPredictsTheHitsOfItsHashIds(@TempDir Path dir) throws IOException {
        Trace trace = Trace.load("mooncake:" + write(dir, "t.jsonl", MOONCAKE));
        assertEquals(4, trace.requests().size());
        assertEquals(0, trace.requests().get(0).timestampMs());
        assertEquals(900, trace.spanMs());
        TraceStats stats = TraceStats.of(trace, 512, 0);
        // request 2 hits blocks 0,1 (1024), request 3 hits block 0 (512), others nothing
        assertEquals(1536, stats.cachedTokens());
        assertEquals(4400, stats.promptTokens());
        assertEquals(1536 / 4400.0, stats.predictedHitRate(), 1e-12);
        assertEquals(1536 / 16 * 16, TraceStats.of(trace, 16, 0).cachedTokens());
        assertTrue(stats.render(trace).contains("34.91 %"), stats.render(trace));

        Trace fast = trace.scaled(3, Duration.ofMillis(250));
        assertEquals(3, fast.requests().size(), "timestamps 0, 100, 200 kept; 300 cut");
        assertEquals(200, fast.requests().get(2).timestampMs());
    }

    @Test
    void azureDatesOfBothYearsAndBadInputNameFileAndLine(@TempDir Path dir) throws IOException {
        Trace a = Trace.load("azure:" + write(dir, "a.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                + "2023-11-16 18:17:03.9799600,374,44\n2023-11-16 18:17:04.0000000,396,109\n"));
        assertEquals(20, a.requests().get(1).timestampMs());
        Trace b = Trace.load("azure:" + write(dir, "b.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                + "2024-05-10 00:00:00+00:00,10,4\n2024-05-10 00:00:01.009930+00:00,12,3\n"));
        assertEquals(1009, b.requests().get(1).timestampMs());

        String m = assertThrows(DatasetFormatException.class, () -> Trace.load("mooncake:" + write(dir, "m.jsonl",
                "{\"timestamp\": 5, \"input_length\": 10, \"output_length\": 2}\n{\"timestamp\": 9, \"input_length\": 10}\n")))
                .getMessage();
        assertTrue(m.endsWith("m.jsonl, line 2: missing field \"output_length\""), m);
        m = assertThrows(DatasetFormatException.class, () -> Trace.load("mooncake:" + write(dir, "n.jsonl",
                "{\"timestamp\": 5, \"input_length\": 10, \"output_length\": 2}\n{\"timestamp\": 4, \"input_length\": 10, \"output_length\": 2}\n")))
                .getMessage();
        assertTrue(m.contains("n.jsonl, line 2: timestamp 4 is before"), m);
        m = assertThrows(DatasetFormatException.class, () -> Trace.load("mooncake:" + write(dir, "t.jsonl",
                "{\"timestamp\": 5, \"input_length\": 10, \"output_")))
                .getMessage();
        assertTrue(m.contains("t.jsonl, line 1: not valid JSON") && !m.contains("Source"), m);
        m = assertThrows(IllegalArgumentException.class, () -> Trace.load("burst:" + dir.resolve("t.jsonl")))
                .getMessage();
        assertTrue(m.contains("unknown trace format 'burst'"), m);
    }

    @Test
    void aDelayOutsideASessionsLaterTurnIsRefusedNamingItsLine(@TempDir Path dir) throws IOException {
        String m = assertThrows(DatasetFormatException.class, () -> Trace.load("mooncake:" + write(dir, "d.jsonl",
                "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2}\n"
                        + "{\"timestamp\": 5, \"input_length\": 10, \"output_length\": 2, \"delay\": 100}\n")))
                .getMessage();
        assertTrue(m.endsWith("d.jsonl, line 2: \"delay\" without \"session_id\": a delay is the think time before a "
                + "session's later turn"), m);
        m = assertThrows(DatasetFormatException.class, () -> Trace.load("mooncake:" + write(dir, "f.jsonl",
                "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2, \"session_id\": \"a\"}\n"
                        + "{\"timestamp\": 5, \"input_length\": 10, \"output_length\": 2, \"session_id\": \"b\", "
                        + "\"delay\": 100}\n")))
                .getMessage();
        assertTrue(m.endsWith("f.jsonl, line 2: \"delay\" on the first turn of session \"b\": a session starts at "
                + "its timestamp; a delay is the think time before a later turn"), m);
        // a later turn's delay is what it is for
        Trace ok = Trace.load("mooncake:" + write(dir, "ok.jsonl",
                "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2, \"session_id\": \"a\"}\n"
                        + "{\"timestamp\": 5, \"input_length\": 10, \"output_length\": 2, \"session_id\": \"a\", "
                        + "\"delay\": 100}\n"));
        assertEquals(100, ok.requests().get(1).delayMs());
        assertEquals(-1, ok.requests().get(0).delayMs());
    }

    @Test
    void promptsAreExactAndEqualIdsAreEqualBytes(@TempDir Path dir) throws IOException {
        assumeTrue(Tokenizers.builtInLlama2Available(), "built-in Llama-2 tokenizer not derived in this build");
        Tokenizer llama = Tokenizers.builtInLlama2();
        Trace trace = Trace.load("mooncake:" + write(dir, "t.jsonl", MOONCAKE));
        TracePrompts.Replay replay = TracePrompts.synthesize(trace, llama, 7);
        var specs = replay.workload().requests();
        for (int i = 0; i < specs.size(); i++) {
            assertEquals(trace.requests().get(i).inputLength(), llama.count(specs.get(i).prompt()), "request " + i);
            assertEquals(trace.requests().get(i).inputLength(), specs.get(i).numberInputTokens());
        }
        int[] ends0 = llama.tokenEnds(specs.get(0).prompt());
        int[] ends1 = llama.tokenEnds(specs.get(1).prompt());
        int twoBlocks = ends0[1023];
        assertEquals(twoBlocks, ends1[1023], "blocks 0 and 1 end at the same char in both prompts");
        assertEquals(specs.get(0).prompt().substring(0, twoBlocks), specs.get(1).prompt().substring(0, twoBlocks));
        assertEquals(300_000_000L, replay.sessionStartsNanos()[1]);
    }

    /**
     * A block that ends one prompt is the same bytes, and the same tokens, where it goes on in another (QA: [1,2] of
     * 1024 tokens then [1,2,3] of 1300 shared 512 tokens at the server, not 1024); a partial last block is the start
     * of its id's block.
     */
    @Test
    void aBlockEndingAPromptIsTheSameBytesAndTokensAsElsewhere(@TempDir Path dir) throws IOException {
        assumeTrue(Tokenizers.builtInLlama2Available(), "built-in Llama-2 tokenizer not derived in this build");
        Tokenizer llama = Tokenizers.builtInLlama2();
        Trace trace = Trace.load("mooncake:" + write(dir, "t2.jsonl", ""
                + "{\"timestamp\": 0, \"input_length\": 1024, \"output_length\": 4, \"hash_ids\": [1, 2]}\n"
                + "{\"timestamp\": 200, \"input_length\": 1300, \"output_length\": 4, \"hash_ids\": [1, 2, 3]}\n"
                + "{\"timestamp\": 300, \"input_length\": 700, \"output_length\": 4, \"hash_ids\": [1, 3]}\n"
                + "{\"timestamp\": 400, \"input_length\": 1536, \"output_length\": 4, \"hash_ids\": [1, 3, 4]}\n"
                + "{\"timestamp\": 500, \"input_length\": 300, \"output_length\": 4, \"hash_ids\": [1]}\n"));
        var specs = TracePrompts.synthesize(trace, llama, 0).workload().requests();
        for (int i = 0; i < specs.size(); i++) {
            assertEquals(trace.requests().get(i).inputLength(), llama.count(specs.get(i).prompt()), "request " + i);
        }
        String a = specs.get(0).prompt();
        String b = specs.get(1).prompt();
        assertTrue(b.startsWith(a + " "), "[1,2] is the start of [1,2,3], block 2 included");
        assertFalse(Character.isWhitespace(a.charAt(a.length() - 1)) || Character.isWhitespace(b.charAt(a.length() + 1))
                || Character.isWhitespace(a.charAt(0)), "blocks neither start nor end with white space");
        long[] idsA = llama.encode(a);
        long[] idsB = llama.encode(b);
        assertEquals(1024, idsA.length);
        for (int t = 0; t < 1024; t++) assertEquals(idsA[t], idsB[t], "token " + t);
        // [1,3] of 700 tokens: block 3's first 188 tokens, the start of the whole block 3 of [1,3,4]
        String c = specs.get(2).prompt();
        String d = specs.get(3).prompt();
        assertTrue(d.startsWith(c), "a partial block is the start of the whole one");
        long[] idsC = llama.encode(c);
        long[] idsD = llama.encode(d);
        for (int t = 0; t < 699; t++) assertEquals(idsC[t], idsD[t], "token " + t);
        // a one-block prompt is the start of block 1 as the first block of the others
        assertTrue(a.startsWith(specs.get(4).prompt()), "[1] of 300 tokens is the start of block 1");
    }

    /**
     * A prompt has at least one token of text: an {@code input_length} the tokenizer's own tokens (Llama-2's BOS) fill
     * gives that one token more (1 gives 2), never an empty prompt, and says so in its count; a tokenizer that adds
     * none gives exactly 1.
     */
    @Test
    void aPromptHasOneTokenOfTextAtLeast(@TempDir Path dir) throws IOException {
        Path file = write(dir, "short.jsonl", ""
                + "{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 2}\n"
                + "{\"timestamp\": 10, \"input_length\": 2, \"output_length\": 2}\n");
        Trace trace = Trace.load("mooncake:" + file);
        var plain = TracePrompts.synthesize(trace, Tokenizers.jtokkit("cl100k_base"), 1).workload().requests();
        assertEquals(1, plain.get(0).numberInputTokens(), "no BOS: exactly 1");
        assertEquals(2, plain.get(1).numberInputTokens());
        assumeTrue(Tokenizers.builtInLlama2Available(), "built-in Llama-2 tokenizer not derived in this build");
        Tokenizer llama = Tokenizers.builtInLlama2();
        assertEquals(1, llama.count(""), "Llama-2 counts its BOS");
        var specs = TracePrompts.synthesize(trace, llama, 1).workload().requests();
        assertFalse(specs.get(0).prompt().isBlank(), "never an empty prompt");
        assertEquals(2, llama.count(specs.get(0).prompt()), "the BOS and one token of text");
        assertEquals(2, specs.get(0).numberInputTokens(), "its real count, not the trace's 1");
        assertEquals(2, specs.get(1).numberInputTokens(), "2 is exact");
    }

    @Test
    void sessionIdsMakeTurnsWithTheirDelaysAsThinkTimes(@TempDir Path dir) throws IOException {
        Trace trace = Trace.load("mooncake:" + write(dir, "s.jsonl", ""
                + "{\"timestamp\": 0, \"input_length\": 20, \"output_length\": 2, \"session_id\": \"a\"}\n"
                + "{\"timestamp\": 10, \"input_length\": 20, \"output_length\": 2, \"session_id\": \"b\"}\n"
                + "{\"timestamp\": 50, \"input_length\": 20, \"output_length\": 2, \"session_id\": \"a\", "
                + "\"delay\": 30}\n"));
        TracePrompts.Replay replay = TracePrompts.synthesize(trace, Tokenizers.jtokkit("cl100k_base"), 1);
        var specs = replay.workload().requests();
        assertEquals(java.util.List.of(0, 0, 1), specs.stream().map(r -> r.inputs().turn()).toList());
        assertEquals("a", specs.get(2).inputs().sessionId());
        assertEquals(30_000_000L, replay.thinkNanos()[2]);
        assertEquals(2, replay.sessionStartsNanos().length, "one start per session");
        assertEquals(10_000_000L, replay.sessionStartsNanos()[1]);
        for (var spec : specs) assertEquals(20, spec.numberInputTokens());
    }
}
