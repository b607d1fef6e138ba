package io.llmperf4j.tokenize.bench;

import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.Tokenizers;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Output token counting on one thread with the built-in Llama-2 tokenizer (its Java BPE), as the runners count every finished
 * response off the I/O threads: {@value #TEXTS} generated texts of about 150 tokens (llmperf's default output
 * length) per operation, so the score is responses counted per second; the setup prints the tokens per text, to turn
 * it into tokens/s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class TokenCountingBenchmark {
    static final int TEXTS = 64;

    private Tokenizer llama;
    private String[] texts;

    @Setup
    public void setUp() {
        llama = Tokenizers.builtInLlama2();
        String[] words = ("the a morning river quietly holds every golden lantern beneath distant harbor and "
                + "evening gardens remember silent promises while weary travelers wander across ancient valleys "
                + "toward bright summer orchards yet winter shadows linger upon hollow mountains, 1984 times.")
                .split(" ");
        texts = new String[TEXTS];
        long tokens = 0;
        for (int t = 0; t < TEXTS; t++) {
            StringBuilder text = new StringBuilder();
            for (int w = 0; w < 120; w++) {
                if (w > 0) text.append(' ');
                text.append(words[(t * 7 + w * 13) % words.length]);
            }
            texts[t] = text.toString();
            tokens += llama.count(texts[t]);
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

    @Benchmark
    @OperationsPerInvocation(TEXTS)
    public long countResponses() {
        long sum = 0;
        for (String text : texts) sum += llama.count(text);
        return sum;
    }
}
