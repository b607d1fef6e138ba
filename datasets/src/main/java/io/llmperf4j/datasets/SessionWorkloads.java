package io.llmperf4j.datasets;

import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.prompt.PromptSynthesizer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Turns a workload's requests into the user turns of multi-turn sessions, and gives sessions or requests a system
 * prompt from shared-prefix groups. The requests stay in order and keep their prompts and counts; only their
 * {@link RequestInputs} change (session id, turn, system prompt), so a manifest records the sessions and a replay
 * sends the same user turns. History (earlier turns and the server's actual replies) is added when the turns are
 * sent, not here.
 */
public final class SessionWorkloads {
    /** Seeds the shared-prefix texts: group g is built with seed {@code GROUP_SEED + g}. */
    public static final long GROUP_SEED = SharedPrefix.SEED;

    private SessionWorkloads() {
    }

    /**
     * Groups the requests into sessions in order: session 0 takes the first T0 requests as turns 0..T0-1, session 1
     * the next T1, and so on, each T drawn from {@code turns} (at least 1) with {@code seed}; the last session may be
     * cut short by the end of the requests. Session ids are {@code s0}, {@code s1}, ...
     */
    public static Workload group(Workload workload, IntDistribution turns, long seed) {
        SplittableRandom random = new SplittableRandom(seed ^ 0x5e55_1045L);
        List<RequestSpec> out = new ArrayList<>(workload.requests().size());
        int session = -1;
        int turn = 0;
        long length = 0;
        for (RequestSpec r : workload.requests()) {
            if (turn >= length) {
                session++;
                turn = 0;
                length = Math.max(1, turns.sample(random));
            }
            out.add(withInputs(r, r.inputs().systemPrompt(), "s" + session, turn++));
        }
        Map<String, Object> generation = new LinkedHashMap<>();
        generation.put("turns", turns.parameters());
        generation.put("sessions", session + 1);
        return workload.with(out, generation);
    }

    /**
     * Gives each session (or each request outside sessions) one of {@code groups} system prompts of exactly
     * {@code tokens} tokens, drawn uniformly with {@code seed}; every turn of a session gets its session's prompt.
     * numberInputTokens counts the tokens sent, as {@code --prefix-tokens} alone does ({@link SharedPrefix#prepend}):
     * the system prompt, {@link SharedPrefix#SEPARATOR} and the prompt counted as one text (the completions API sends
     * them so). In a session only the first turn counts it: a later turn's count is the history (which starts with
     * the first turn's count) plus its own message, added as it is sent.
     */
    public static Workload withSystemPrompts(Workload workload, Tokenizer tokenizer, int groups, int tokens,
                                             long seed) {
        if (groups < 1) throw new IllegalArgumentException("shared-prefix groups (" + groups + ") must be >= 1");
        Workload.requireEncoding(tokenizer);
        int empty = tokenizer.count("");
        if (tokens <= empty) {
            throw new IllegalArgumentException("a shared prefix needs more than " + empty + " tokens with "
                    + tokenizer.id() + " (its special tokens alone), not " + tokens);
        }
        PromptSynthesizer synthesizer = new PromptSynthesizer(tokenizer, Corpus.defaultCorpus().lines());
        List<String> prompts = new ArrayList<>(groups);
        for (int g = 0; g < groups; g++) prompts.add(synthesizer.textOfExactly("", tokens, GROUP_SEED + g));
        SplittableRandom random = new SplittableRandom(seed ^ 0x9f0_0c9L);
        Map<String, String> bySession = new LinkedHashMap<>();
        List<RequestSpec> out = new ArrayList<>(workload.requests().size());
        for (RequestSpec r : workload.requests()) {
            String sessionId = r.inputs().sessionId();
            String system = sessionId == null ? prompts.get(random.nextInt(groups))
                    : bySession.computeIfAbsent(sessionId, s -> prompts.get(random.nextInt(groups)));
            RequestSpec given = withInputs(r, system, sessionId, r.inputs().turn());
            out.add(sessionId != null && r.inputs().turn() > 0 ? given : withSystemCounted(given, tokenizer));
        }
        Map<String, Object> generation = new LinkedHashMap<>();
        generation.put("shared_prefix_groups", groups);
        generation.put("shared_prefix_tokens", tokens);
        List<String> digests = new ArrayList<>();
        for (String p : prompts) digests.add(Hashing.sha256Hex(p.getBytes(StandardCharsets.UTF_8)));
        generation.put("shared_prefix_sha256", digests);
        return workload.with(out, generation);
    }

    /**
     * {@code r} with numberInputTokens the count of its system prompt, {@link SharedPrefix#SEPARATOR} and prompt as
     * one text: the tokens a request with a system prompt sends ({@code r} itself without one).
     */
    static RequestSpec withSystemCounted(RequestSpec r, Tokenizer tokenizer) {
        return r.withSystemPromptCounted(tokenizer);
    }

    static RequestSpec withInputs(RequestSpec r, String systemPrompt, String sessionId, int turn) {
        RequestInputs in = r.inputs();
        return new RequestSpec(r.index(), r.prompt(), r.numberInputTokens(), r.maxTokens(),
                new RequestInputs(systemPrompt, in.history(), in.images(), sessionId, sessionId == null ? -1 : turn));
    }
}
