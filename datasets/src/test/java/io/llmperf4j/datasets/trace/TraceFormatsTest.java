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
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** BurstGPT's CSV and AIPerf's Mooncake {@code text_input}: what is read, what is skipped, what is refused. */
class TraceFormatsTest {

    private static Path write(Path dir, String name, String text) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return f;
    }

    private static String refusal(String spec) {
        return assertThrows(DatasetFormatException.class, () -> Trace.load(spec)).getMessage();
    }

    @Test
    void burstGptRowsAreSecondsFromTheFirstRowAndFailedRowsAreSkippedAndCounted(@TempDir Path dir)
            throws IOException {
        Path f = write(dir, "b.csv", """
                Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type
                5,ChatGPT,472,18,490,Conversation log
                45,GPT-4,1087,0,1087,API log

                46.25,GPT-4,20,7,27,API log
                46.25,ChatGPT,3,1,4,Conversation log
                """);
        Trace t = Trace.load("burstgpt:" + f);
        assertEquals(Trace.BURSTGPT, t.format());
        assertEquals(1, t.failedRows(), "the GPT-4 row of Response tokens 0");
        List<TraceRequest> rs = t.requests();
        assertEquals(3, rs.size());
        assertEquals(List.of(0L, 41_250L, 41_250L), rs.stream().map(TraceRequest::timestampMs).toList());
        assertEquals(List.of(472, 20, 3), rs.stream().map(TraceRequest::inputLength).toList());
        assertEquals(List.of(18, 7, 1), rs.stream().map(TraceRequest::outputLength).toList());
        assertEquals(List.of(2, 5, 6), rs.stream().map(TraceRequest::line).toList(), "the blank line 4 counted");
        assertNull(rs.get(0).hashIds());
        assertEquals(41.25, t.spanMs() / 1000.0, 1e-12);

        String render = TraceStats.of(t, 512, 0).render(t);
        assertTrue(render.startsWith("Trace " + f + " (burstgpt): 3 requests over 41.250 s"), render);
        assertTrue(render.contains("Skipped: 1 failed row (Response tokens 0), as vLLM's BurstGPT loader drops them"),
                render);
        assertEquals(1, t.scaled(2, Duration.ofSeconds(10)).failedRows(), "kept through a speedup and a cut");
    }

    @Test
    void burstGptsEightColumnFileIsReadByItsHeaderNames(@TempDir Path dir) throws IOException {
        Path f = write(dir, "b3.csv", """
                Timestamp,Session ID,Elapsed time,Model,Request tokens,Response tokens,Total tokens,Log Type
                100,s1,3.5,ChatGPT,30,12,42,Conversation log
                101.5,,2.0,GPT-4,40,9,49,API log
                """);
        Trace t = Trace.load("burstgpt:" + f);
        assertEquals(List.of(0L, 1500L), t.requests().stream().map(TraceRequest::timestampMs).toList());
        assertEquals(List.of(30, 40), t.requests().stream().map(TraceRequest::inputLength).toList());
        assertEquals(List.of(12, 9), t.requests().stream().map(TraceRequest::outputLength).toList());
        assertFalse(t.hasSessions(), "BurstGPT's Session ID is not a replayable session: no turns or delays");
    }

    @Test
    void badBurstGptRowsNameTheFileAndLine(@TempDir Path dir) throws IOException {
        String header = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n";
        Path noColumn = write(dir, "h.csv", "Timestamp,Model,Request tokens,Total tokens\n1,GPT-4,3,4\n");
        assertTrue(refusal("burstgpt:" + noColumn).contains("line 1: the header must name Timestamp, Request "
                + "tokens, Response tokens"), refusal("burstgpt:" + noColumn));
        Path letters = write(dir, "l.csv", header + "1,GPT-4,3,4,7,API log\n2,GPT-4,x,4,7,API log\n");
        assertTrue(refusal("burstgpt:" + letters).endsWith("line 3: Request tokens must be an integer >= 1 (got "
                + "'x')"), refusal("burstgpt:" + letters));
        Path backwards = write(dir, "d.csv", header + "9,GPT-4,3,4,7,API log\n8,GPT-4,3,4,7,API log\n");
        assertTrue(refusal("burstgpt:" + backwards).endsWith("line 3: Timestamp 8 is before the previous row's: "
                + "timestamps must not decrease"), refusal("burstgpt:" + backwards));
        Path time = write(dir, "t.csv", header + "noon,GPT-4,3,4,7,API log\n");
        assertTrue(refusal("burstgpt:" + time).endsWith("line 2: Timestamp must be seconds >= 0, such as 5 or "
                + "12.25 (got 'noon')"), refusal("burstgpt:" + time));
        Path shortRow = write(dir, "s.csv", header + "1,GPT-4,3\n");
        assertTrue(refusal("burstgpt:" + shortRow).endsWith("line 2: expected 6 columns, found 3"),
                refusal("burstgpt:" + shortRow));
        Path allFailed = write(dir, "f.csv", header + "1,GPT-4,3,0,3,API log\n2,GPT-4,3,0,3,API log\n");
        assertTrue(refusal("burstgpt:" + allFailed).endsWith("the trace has no requests (its 2 rows all failed: "
                + "Response tokens 0)"), refusal("burstgpt:" + allFailed));
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> Trace.load("sharegpt:" + allFailed));
        assertTrue(unknown.getMessage().endsWith("unknown trace format 'sharegpt' (mooncake, azure or burstgpt)"));
    }

    @Test
    void aTextInputIsSentAsItIsAndCountedByTheTokenizer(@TempDir Path dir) throws IOException {
        Path f = write(dir, "a.jsonl", """
                {"timestamp": 0, "output_length": 3, "text_input": "Say exactly: hello"}
                {"timestamp": 10, "input_length": 100, "output_length": 4}
                {"timestamp": 20, "output_length": 5, "text_input": "Say exactly: hello", "session_id": "s"}
                """);
        Trace t = Trace.load("mooncake:" + f);
        assertTrue(t.hasTextInput());
        assertEquals("Say exactly: hello", t.requests().get(0).textInput());
        assertEquals(0, t.requests().get(0).inputLength(), "not counted before a tokenizer counts it");
        assertNull(t.requests().get(1).textInput());

        Tokenizer llama = Tokenizers.builtInLlama2();
        int tokens = llama.count("Say exactly: hello");
        Trace counted = t.scaled(2, null).counted(llama::count);
        assertEquals(List.of(tokens, 100, tokens), counted.requests().stream().map(TraceRequest::inputLength)
                .toList());
        assertEquals(List.of(0L, 5L, 10L), counted.requests().stream().map(TraceRequest::timestampMs).toList());

        var specs = TracePrompts.synthesize(t, llama, 3).workload().requests();
        assertEquals("Say exactly: hello", specs.get(0).prompt());
        assertEquals(tokens, specs.get(0).numberInputTokens());
        assertEquals(3, specs.get(0).maxTokens());
        assertEquals(100, specs.get(1).numberInputTokens(), "the synthesized line as before");
        assertEquals("Say exactly: hello", specs.get(2).prompt(), "a session's turn sends its text too");
        assertEquals(5, specs.get(2).maxTokens());
    }

    @Test
    void aLineAIPerfWouldRefuseOrThatCannotBeHonouredIsRefusedNamingItsLine(@TempDir Path dir) throws IOException {
        String ok = "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 3}\n";
        Path both = write(dir, "both.jsonl", ok
                + "{\"timestamp\": 0, \"input_length\": 100, \"output_length\": 3, \"text_input\": \"hi\"}\n");
        assertTrue(refusal("mooncake:" + both).endsWith("line 2: \"text_input\" and \"input_length\" are "
                + "alternatives (AIPerf refuses both): give text_input to send that text, its length counted by the "
                + "run's tokenizer, or input_length for a synthesized prompt"), refusal("mooncake:" + both));
        Path ids = write(dir, "ids.jsonl", "{\"timestamp\": 0, \"output_length\": 3, \"text_input\": \"hi\", "
                + "\"hash_ids\": [1]}\n");
        assertTrue(refusal("mooncake:" + ids).contains("line 1: hash_ids goes with input_length, not text_input"),
                refusal("mooncake:" + ids));
        Path empty = write(dir, "empty.jsonl", ok + ok + "{\"timestamp\": 0, \"output_length\": 3, "
                + "\"text_input\": \" \"}\n");
        assertTrue(refusal("mooncake:" + empty).endsWith("line 3: \"text_input\" is empty: a prompt must ask "
                + "something"), refusal("mooncake:" + empty));
        Path number = write(dir, "number.jsonl", "{\"timestamp\": 0, \"output_length\": 3, \"text_input\": 7}\n");
        assertTrue(refusal("mooncake:" + number).endsWith("line 1: \"text_input\" must be a string, not 7"),
                refusal("mooncake:" + number));
        Path messages = write(dir, "messages.jsonl", ok + "{\"timestamp\": 5, \"output_length\": 3, \"messages\": "
                + "[{\"role\": \"user\", \"content\": \"Hello\"}]}\n");
        assertTrue(refusal("mooncake:" + messages).endsWith("line 2: \"messages\" (AIPerf's pre-formatted chat "
                + "messages) is not supported: give input_length (with hash_ids) or text_input"),
                refusal("mooncake:" + messages));
        Path extra = write(dir, "extra.jsonl", "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 3, "
                + "\"extra\": {\"nvext\": {\"priority\": 9}}}\n");
        assertTrue(refusal("mooncake:" + extra).contains("line 1: \"extra\" (AIPerf's per-request body fields) is "
                + "not supported"), refusal("mooncake:" + extra));
        Path neither = write(dir, "neither.jsonl", "{\"timestamp\": 0, \"output_length\": 3}\n");
        assertTrue(refusal("mooncake:" + neither).endsWith("line 1: missing field \"input_length\""),
                refusal("mooncake:" + neither));
    }
}
