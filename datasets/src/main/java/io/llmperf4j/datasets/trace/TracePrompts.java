package io.llmperf4j.datasets.trace;

import io.llmperf4j.datasets.Corpus;
import io.llmperf4j.datasets.Workload;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.prompt.PromptSynthesizer;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Prompts for a trace's requests, as AIPerf builds them from {@code hash_ids}: each id stands for one
 * {@value Trace#BLOCK_TOKENS}-token block of text, the same id always the same bytes, so a server's prefix cache
 * hits exactly where the trace says. Blocks are corpus text of exactly 512 tokens with the tokenizer (the first
 * block counts the BOS), joined by one space, which tokenizers that split on white space (Llama's, GPT's) count
 * additively; the last, partial block is fitted so the whole prompt is exactly {@code input_length} tokens. A
 * prompt has one token of text at least: an {@code input_length} the tokenizer's own tokens alone would fill (1 with
 * Llama-2's BOS) gives one token more, its real count reported, rather than an empty prompt, which some APIs refuse
 * (Anthropic's empty text block, an empty completions prompt without a BOS) and which asks the server nothing.
 * Requests without ids get blocks of their own. A request with its own text (AIPerf's {@code text_input}) sends that
 * text, its length counted by the tokenizer. A trace's sessions become multi-turn sessions (each request a user
 * turn; its {@code delay} the think time before it).
 */
public final class TracePrompts {

    /**
     * A trace ready to send.
     *
     * @param workload           the requests in trace order
     * @param sessionStartsNanos the start of each session (in order of first appearance), from the trace's start
     * @param thinkNanos         per request index, the wait after the previous turn's reply (0 for first turns)
     */
    public record Replay(Workload workload, long[] sessionStartsNanos, long[] thinkNanos) {
    }

    private final Tokenizer tokenizer;
    private final PromptSynthesizer synthesizer;
    private final int bos;
    private final long seed;
    private final Map<Long, String> firstBlocks = new HashMap<>();
    private final Map<Long, String> laterBlocks = new HashMap<>();

    private TracePrompts(Tokenizer tokenizer, long seed) {
        this.tokenizer = tokenizer;
        this.synthesizer = new PromptSynthesizer(tokenizer, Corpus.defaultCorpus().lines());
        this.bos = tokenizer.count("");
        this.seed = seed;
    }

    /** The trace's requests with synthesized prompts; the same trace, tokenizer and seed give the same bytes. */
    public static Replay synthesize(Trace trace, Tokenizer tokenizer, long seed) {
        TracePrompts prompts = new TracePrompts(tokenizer, seed);
        List<RequestSpec> specs = new ArrayList<>();
        Map<String, Integer> turns = new HashMap<>();
        List<Long> starts = new ArrayList<>();
        long[] think = new long[trace.requests().size()];
        int sessions = 0;
        for (int i = 0; i < trace.requests().size(); i++) {
            TraceRequest r = trace.requests().get(i);
            String prompt = r.textInput() != null ? r.textInput() : prompts.prompt(r, i);
            int tokens = tokenizer.count(prompt);
            RequestInputs inputs = RequestInputs.TEXT_ONLY;
            if (r.sessionId() != null) {
                int turn = turns.merge(r.sessionId(), 1, Integer::sum) - 1;
                inputs = new RequestInputs(null, List.of(), List.of(), r.sessionId(), turn);
                if (turn == 0) starts.add(r.timestampMs() * 1_000_000L);
                else think[i] = Math.max(0, r.delayMs()) * 1_000_000L;
            } else {
                starts.add(r.timestampMs() * 1_000_000L);
            }
            sessions += inputs.turn() <= 0 ? 1 : 0;
            specs.add(new RequestSpec(i, prompt, tokens, r.outputLength(), inputs));
        }
        Map<String, Object> generation = new LinkedHashMap<>();
        generation.put("trace_format", trace.format());
        generation.put("block_tokens", Trace.BLOCK_TOKENS);
        generation.put("request_count", specs.size());
        generation.put("sessions", sessions);
        Workload workload = new Workload("trace", trace.file().toAbsolutePath().toString(), null, tokenizer.id(), seed,
                generation, specs);
        return new Replay(workload, starts.stream().mapToLong(Long::longValue).toArray(), think);
    }

    private String prompt(TraceRequest r, int index) {
        int n = (r.inputLength() + Trace.BLOCK_TOKENS - 1) / Trace.BLOCK_TOKENS;
        StringBuilder text = new StringBuilder();
        for (int k = 0; k < n - 1; k++) {
            long id = r.hashIds() != null ? r.hashIds()[k] : uniqueId(index, k);
            if (k > 0) text.append(' ');
            text.append(block(id, k == 0));
        }
        long lastId = r.hashIds() != null ? r.hashIds()[n - 1] : uniqueId(index, n - 1);
        String head = n == 1 ? "" : text.append(' ').toString();
        // the last block is the first tokens of its id's block, not other text: a block that ends one prompt and
        // goes on in another is the same bytes in both (a whole block is the block itself)
        String full = block(lastId, n == 1);
        int[] ends = tokenizer.tokenEnds(full);
        int content = 0;
        for (int end : ends) if (end != Tokenizer.NO_TEXT) content++;
        int want = r.inputLength() - (n - 1) * Trace.BLOCK_TOKENS - (n == 1 ? bos : 0);
        String prompt = null;
        for (int attempt = 0; attempt < 8; attempt++) {
            want = Math.max(1, Math.min(content, want)); // one token of text at least: never an empty prompt
            prompt = head + full.substring(0, contentEnd(ends, want));
            int count = tokenizer.count(prompt);
            if (count == r.inputLength()) return prompt;
            int next = want + r.inputLength() - count;
            if (Math.max(1, Math.min(content, next)) == want) break;
            want = next;
        }
        return prompt; // not exact: its real count is reported
    }

    /** The end (in characters) of the {@code tokens}-th token of a block's own text, the added BOS not counted. */
    private static int contentEnd(int[] ends, int tokens) {
        int seen = 0;
        for (int end : ends) {
            if (end == Tokenizer.NO_TEXT) continue;
            if (++seen == tokens) return end;
        }
        throw new IllegalStateException("a block of fewer than " + tokens + " tokens");
    }

    /**
     * The text of block {@code id}: {@value Trace#BLOCK_TOKENS} tokens of corpus text chosen by the id alone. A
     * prompt's first block is one token shorter, the tokenizer's BOS being its first token.
     */
    private String block(long id, boolean first) {
        Map<Long, String> cache = first ? firstBlocks : laterBlocks;
        return cache.computeIfAbsent(id, k -> synthesizer.textOfExactly("",
                first ? Trace.BLOCK_TOKENS : Trace.BLOCK_TOKENS + bos, mix(k)));
    }

    private long mix(long id) {
        long z = seed + (id + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        return z ^ (z >>> 27);
    }

    /** An id no trace uses: blocks of a request without hash ids. */
    private static long uniqueId(int request, int block) {
        return -1L - ((long) request << 20) - block;
    }
}
