package io.llmperf4j.tokenize.bench;

import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.Tokenizers;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Output token counting on one thread with the built-in Llama-2 tokenizer (its Java BPE), as the runners count every finished
 * response off the I/O threads: {@value #TEXTS} generated texts of about 150 tokens (llmperf's default output
 * length) per operation, so the score is responses counted per second; the setup prints the tokens per text, to turn
 * it into tokens/s. {@link #tokenEndsOfALongAnswer} counts one long answer per operation, of the shapes a model stuck
 * in a loop sends: multiply its score by {@code chars} for characters/s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class TokenCountingBenchmark {
    static final int TEXTS = 64;

    private Tokenizer llama;
    private String[] texts;
    /** Each text's content events as a stream sends them: one word (with its leading space) per event. */
    private int[][] eventChars;

    @Setup
    public void setUp() {
        llama = Tokenizers.builtInLlama2();
        String[] words = ("the a morning river quietly holds every golden lantern beneath distant harbor and "
                + "evening gardens remember silent promises while weary travelers wander across ancient valleys "
                + "toward bright summer orchards yet winter shadows linger upon hollow mountains, 1984 times.")
                .split(" ");
        texts = new String[TEXTS];
        eventChars = new int[TEXTS][];
        long tokens = 0;
        for (int t = 0; t < TEXTS; t++) {
            StringBuilder text = new StringBuilder();
            for (int w = 0; w < 120; w++) {
                if (w > 0) text.append(' ');
                text.append(words[(t * 7 + w * 13) % words.length]);
            }
            texts[t] = text.toString();
            tokens += llama.count(texts[t]);
            eventChars[t] = wordEvents(texts[t]);
        }
        System.out.printf("%n[token counting: %.1f tokens per text on average]%n", (double) tokens / TEXTS);
    }

    /** What the runners call per response: the token ends, for the per-event counts (per-token ITL). */
    @Benchmark
    @OperationsPerInvocation(TEXTS)
    public long tokenEndsOfResponses() {
        long sum = 0;
        for (String text : texts) sum += llama.tokenEnds(text).length;
        return sum;
    }

    /** What the runners need per response: the tokens each content event completed (the per-token ITL). */
    @Benchmark
    @OperationsPerInvocation(TEXTS)
    public long tokensPerEventOfResponses() {
        long sum = 0;
        for (int t = 0; t < TEXTS; t++) sum += perEvent(texts[t], eventChars[t]).length;
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(TEXTS)
    public long countResponses() {
        long sum = 0;
        for (String text : texts) sum += llama.count(text);
        return sum;
    }

    /**
     * One answer of {@code chars} characters: a single word (no space) of one repeated letter ({@code x}), of two
     * alternating ones ({@code xy}), of random base64, of random Latin-1 characters or random Unicode (byte fallback,
     * surrogate pairs); {@code words} is ordinary spaced text of the same size, for comparison.
     */
    @State(Scope.Thread)
    public static class LongAnswer {
        @Param({"x", "xy", "base64", "latin1", "unicode", "words"})
        public String shape;
        static final int EVENTS = 64;
        @Param({"65536", "1048576"})
        public int chars;
        String text;
        /** The answer as {@value #EVENTS} content events of (about) equal size. */
        int[] eventChars;

        @Setup
        public void setUp() {
            Random random = new Random(chars);
            StringBuilder b = new StringBuilder(chars + 16);
            String base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            String[] words = "the quick brown fox jumps over a lazy dog and then some more words here".split(" ");
            while (b.length() < chars) {
                switch (shape) {
                    case "x" -> b.append('x');
                    case "xy" -> b.append(b.length() % 2 == 0 ? 'x' : 'y');
                    case "base64" -> b.append(base64.charAt(random.nextInt(64)));
                    case "latin1" -> {
                        char c = (char) (1 + random.nextInt(255));
                        b.append(c == ' ' ? 'z' : c);
                    }
                    case "unicode" -> {
                        int cp = random.nextInt(4) == 0 ? 0x10000 + random.nextInt(0x20000) : 0x21 + random.nextInt(0xFFDF);
                        if (Character.isDefined(cp) && !Character.isWhitespace(cp) && !Character.isSurrogate((char) cp)) {
                            b.appendCodePoint(cp);
                        }
                    }
                    case "words" -> b.append(b.length() == 0 ? "" : " ").append(words[random.nextInt(words.length)]);
                    default -> throw new IllegalArgumentException("unknown shape " + shape);
                }
            }
            text = b.toString();
            eventChars = new int[EVENTS];
            for (int k = 0; k < EVENTS; k++) eventChars[k] = (k + 1) * text.length() / EVENTS - k * text.length() / EVENTS;
        }
    }

    /** The token ends of one long answer, as the runners count it (the per-event counts need the ends). */
    @Benchmark
    public int tokenEndsOfALongAnswer(LongAnswer answer) {
        return llama.tokenEnds(answer.text).length;
    }

    /** The tokens of each event of one long answer, as the runners count it. */
    @Benchmark
    public int tokensPerEventOfALongAnswer(LongAnswer answer) {
        return perEvent(answer.text, answer.eventChars).length;
    }

    private int[] perEvent(String text, int[] events) {
        return llama.tokensPerEvent(text, events).perEvent();
    }

    /** Event sizes of {@code text} cut before each space. */
    private static int[] wordEvents(String text) {
        int[] sizes = new int[text.length() + 1];
        int count = 0;
        int start = 0;
        for (int i = 1; i <= text.length(); i++) {
            if (i == text.length() || text.charAt(i) == ' ') {
                sizes[count++] = i - start;
                start = i;
            }
        }
        return Arrays.copyOf(sizes, count);
    }
}
