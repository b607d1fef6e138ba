package io.llmperf4j.llama;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * A tiny llama-architecture model with the real Llama-2 vocabulary, written as a GGUF file, so llama.cpp can run
 * a real inference engine in tests without downloading anything: about 17 MB, decoding thousands of tokens per
 * second on one core.
 *
 * <h2>Shape</h2>
 * {@value #EMBEDDING_LENGTH}-wide embeddings, {@value #BLOCK_COUNT} blocks of {@value #HEAD_COUNT}-head attention
 * and a {@value #FEED_FORWARD_LENGTH}-wide SwiGLU feed-forward, context {@value #CONTEXT_LENGTH}, all F32. The
 * tokenizer metadata is the Llama-2 SentencePiece vocabulary ({@link Llama2Vocabulary}: BOS 1 added to every prompt,
 * EOS 2), and the chat template is Llama-2's {@code [INST] ... [/INST]} without a system block, which llama.cpp
 * recognises by itself.
 *
 * <h2>What it says</h2>
 * Random weights alone would make gibberish whose text re-tokenizes to other token counts, which would break the
 * very equalities the tests check. So the attention and feed-forward weights are small and random, and the
 * embedding and output matrices plant a path, each token of which leads to the next: after a prompt whose last
 * token is not on the path, the model first says {@code "the"}, then repeats {@link #CYCLE} forever: {@code " JSON tokens stream🦙 via HTTP servers"} with the llama emoji spelled as
 * four byte tokens, so every response carries a character split across tokens. The path wins by a logit margin of
 * about 150, so any usual sampling setting (temperature, top-p, penalties) picks it. The model never emits EOS, so a
 * response always has exactly max_tokens tokens. This text of n tokens re-tokenizes with the Llama-2 tokenizer to
 * the same n tokens (n + 1 with BOS), less the emoji bytes a budget ending inside the emoji holds back
 * ({@link #heldBackTokens}).
 *
 * <p>The next token depends only on the last one, so a prompt ending in a path token continues the path from there
 * ({@code "Explain HTTP"} → {@code " servers JSON tokens stream"}) without {@code "the"}. No prompt text of the
 * tests' corpora ends in one; a chat prompt ends in the template's {@code [/INST]}.
 */
public final class TinyLlamaModel {
    public static final int EMBEDDING_LENGTH = 64;
    public static final int BLOCK_COUNT = 2;
    public static final int HEAD_COUNT = 4;
    public static final int FEED_FORWARD_LENGTH = 128;
    public static final int CONTEXT_LENGTH = 2048;
    public static final long DEFAULT_SEED = 20_240_601L;
    public static final String NAME = "llmperf4j-tiny-llama";
    /** Changes whenever the written bytes change, so a file named by {@link #fileName} is never stale. */
    static final int LAYOUT_VERSION = 1;

    /** Llama-2 chat without a system block; llama.cpp renders it as {@code "[INST] " + content + " [/INST]"}. */
    public static final String CHAT_TEMPLATE = "{% for message in messages %}"
            + "{% if loop.first or messages[loop.index0 - 1]['role'] == 'assistant' %}{{ '[INST] ' }}{% endif %}"
            + "{% if message['role'] == 'system' %}{{ message['content'] + '\\n' }}"
            + "{% elif message['role'] == 'user' %}{{ message['content'] + ' [/INST]' }}"
            + "{% else %}{{ message['content'] + '</s>' }}{% endif %}{% endfor %}";

    /** The first token of every response: "the" without a leading space. */
    static final String FIRST = "the";
    /** The tokens repeated after {@link #FIRST}, as the vocabulary spells them. */
    static final List<String> CYCLE = List.of("▁JSON", "▁tokens", "▁stream",
            "<0xF0>", "<0x9F>", "<0xA6>", "<0x99>", "▁via", "▁HTTP", "▁servers");
    /** Indexes into {@link #CYCLE} of the emoji's first three bytes: a response ending there ends mid-character. */
    private static final int EMOJI_START = 3;
    private static final int EMOJI_END = 6;
    /** {@link #CYCLE} token by token as text: the emoji's first three bytes add nothing, its last adds it whole. */
    private static final List<String> CYCLE_PIECES = List.of(" JSON", " tokens", " stream", "", "", "",
            "\uD83E\uDD99", " via", " HTTP", " servers");

    private static final float PATH_LOGIT_SCALE = 20f; // times |normalized hidden state| = 8: logit 160
    private static final float NOISE = 0.02f;

    private TinyLlamaModel() {
    }

    /** A file name that identifies this model exactly, e.g. {@code llmperf4j-tiny-llama-v1-20240601.gguf}. */
    public static String fileName(long seed) {
        return NAME + "-v" + LAYOUT_VERSION + "-" + seed + ".gguf";
    }

    /**
     * Writes the model with {@link #DEFAULT_SEED} to {@code file}, unless a file is already there: name it with
     * {@link #fileName} so an existing file is this very model.
     */
    public static Path writeIfAbsent(Path file) throws IOException {
        if (!Files.isRegularFile(file)) write(file, DEFAULT_SEED);
        return file;
    }

    /** Writes the model to {@code file}; the same seed gives the same bytes. */
    public static Path write(Path file, long seed) throws IOException {
        Llama2Vocabulary vocabulary = Llama2Vocabulary.builtIn();
        Random random = new Random(seed);
        GgufWriter gguf = new GgufWriter()
                .putString("general.architecture", "llama")
                .putString("general.name", NAME)
                .putUInt32("general.alignment", GgufWriter.ALIGNMENT)
                .putUInt32("general.file_type", 0) // all F32
                .putUInt32("llama.vocab_size", vocabulary.size())
                .putUInt32("llama.context_length", CONTEXT_LENGTH)
                .putUInt32("llama.embedding_length", EMBEDDING_LENGTH)
                .putUInt32("llama.block_count", BLOCK_COUNT)
                .putUInt32("llama.feed_forward_length", FEED_FORWARD_LENGTH)
                .putUInt32("llama.rope.dimension_count", EMBEDDING_LENGTH / HEAD_COUNT)
                .putUInt32("llama.attention.head_count", HEAD_COUNT)
                .putUInt32("llama.attention.head_count_kv", HEAD_COUNT)
                .putFloat32("llama.attention.layer_norm_rms_epsilon", 1e-5f)
                .putString("tokenizer.ggml.model", "llama")
                .putStrings("tokenizer.ggml.tokens", vocabulary.tokens())
                .putFloat32s("tokenizer.ggml.scores", vocabulary.scores())
                .putInt32s("tokenizer.ggml.token_type", vocabulary.types())
                .putUInt32("tokenizer.ggml.bos_token_id", Llama2Vocabulary.BOS_ID)
                .putUInt32("tokenizer.ggml.eos_token_id", Llama2Vocabulary.EOS_ID)
                .putUInt32("tokenizer.ggml.unknown_token_id", Llama2Vocabulary.UNKNOWN_ID)
                .putBool("tokenizer.ggml.add_bos_token", true)
                .putBool("tokenizer.ggml.add_eos_token", false)
                .putString("tokenizer.chat_template", CHAT_TEMPLATE);

        int[] path = pathIds(vocabulary);
        int vocab = vocabulary.size();
        gguf.tensor("token_embd.weight", embeddings(vocab, path, random), EMBEDDING_LENGTH, vocab);
        gguf.tensor("output_norm.weight", ones(EMBEDDING_LENGTH), EMBEDDING_LENGTH);
        gguf.tensor("output.weight", output(vocab, path, random), EMBEDDING_LENGTH, vocab);
        for (int block = 0; block < BLOCK_COUNT; block++) {
            String prefix = "blk." + block + ".";
            gguf.tensor(prefix + "attn_norm.weight", ones(EMBEDDING_LENGTH), EMBEDDING_LENGTH);
            for (String name : List.of("attn_q", "attn_k", "attn_v", "attn_output")) {
                gguf.tensor(prefix + name + ".weight", noise(EMBEDDING_LENGTH * EMBEDDING_LENGTH, random),
                        EMBEDDING_LENGTH, EMBEDDING_LENGTH);
            }
            gguf.tensor(prefix + "ffn_norm.weight", ones(EMBEDDING_LENGTH), EMBEDDING_LENGTH);
            int ffn = EMBEDDING_LENGTH * FEED_FORWARD_LENGTH;
            gguf.tensor(prefix + "ffn_gate.weight", noise(ffn, random), EMBEDDING_LENGTH, FEED_FORWARD_LENGTH);
            gguf.tensor(prefix + "ffn_up.weight", noise(ffn, random), EMBEDDING_LENGTH, FEED_FORWARD_LENGTH);
            gguf.tensor(prefix + "ffn_down.weight", noise(ffn, random), FEED_FORWARD_LENGTH, EMBEDDING_LENGTH);
        }
        return gguf.writeAndReturn(file);
    }

    /** The text of a response of {@code tokens} tokens (an emoji cut short is left out, as a stream holds it back). */
    public static String generatedText(int tokens) {
        if (tokens <= 0) return "";
        StringBuilder text = new StringBuilder(FIRST);
        int whole = (tokens - 1) / CYCLE.size();
        text.append(String.join("", CYCLE_PIECES).repeat(whole));
        int rest = (tokens - 1) % CYCLE.size();
        for (int i = 0; i < rest; i++) text.append(CYCLE_PIECES.get(i));
        return text.toString();
    }

    /**
     * How many of the last tokens of a {@code tokens}-token response are the first bytes of an emoji the budget cut
     * off (0 to 3): llama.cpp never sends them, so the text has that many tokens fewer than the engine generated.
     */
    public static int heldBackTokens(int tokens) {
        if (tokens <= 1) return 0;
        int last = (tokens - 2) % CYCLE.size();
        return last >= EMOJI_START && last < EMOJI_END ? last - EMOJI_START + 1 : 0;
    }

    /** Token ids of {@link #FIRST} then {@link #CYCLE}: path state {@code j} owns embedding dimension {@code j}. */
    private static int[] pathIds(Llama2Vocabulary vocabulary) {
        int[] ids = new int[1 + CYCLE.size()];
        ids[0] = vocabulary.id(FIRST);
        for (int i = 0; i < CYCLE.size(); i++) ids[i + 1] = vocabulary.id(CYCLE.get(i));
        return ids;
    }

    /** Path token j is the unit vector e_j; every other token is e_63 plus noise, so all of them look alike. */
    private static float[] embeddings(int vocab, int[] path, Random random) {
        float[] weights = noise(vocab * EMBEDDING_LENGTH, random);
        for (int token = 0; token < vocab; token++) weights[token * EMBEDDING_LENGTH + EMBEDDING_LENGTH - 1] += 1f;
        for (int j = 0; j < path.length; j++) {
            int row = path[j] * EMBEDDING_LENGTH;
            Arrays.fill(weights, row, row + EMBEDDING_LENGTH, 0f);
            weights[row + j] = 1f;
        }
        return weights;
    }

    /** Output rows: e_63 (any other token) leads to "the", e_j leads to the path token after j; the rest is noise. */
    private static float[] output(int vocab, int[] path, Random random) {
        float[] weights = noise(vocab * EMBEDDING_LENGTH, random);
        weights[path[0] * EMBEDDING_LENGTH + EMBEDDING_LENGTH - 1] += PATH_LOGIT_SCALE;
        for (int j = 0; j < path.length; j++) {
            int next = j + 1 < path.length ? j + 1 : 1; // after the last cycle token, the cycle starts again
            weights[path[next] * EMBEDDING_LENGTH + j] += PATH_LOGIT_SCALE;
        }
        return weights;
    }

    private static float[] noise(int count, Random random) {
        float[] values = new float[count];
        for (int i = 0; i < count; i++) values[i] = (float) (random.nextGaussian() * NOISE);
        return values;
    }

    private static float[] ones(int count) {
        float[] values = new float[count];
        Arrays.fill(values, 1f);
        return values;
    }
}
