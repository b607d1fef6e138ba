package io.llmperf4j.tokenize.bench;

import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.Tokenizers;
import io.llmperf4j.tokenize.prompt.PromptMode;
import io.llmperf4j.tokenize.prompt.PromptParams;
import io.llmperf4j.tokenize.prompt.PromptSynthesizer;
import io.llmperf4j.tokenize.prompt.PythonRandom;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
 * Prompts synthesized per second on one thread with the built-in Llama-2 tokenizer: llmperf's default lengths
 * (550±150 input tokens, 150±80 output tokens), {@value #PROMPTS} prompts per operation, so the score is prompts/s.
 * Each operation uses a new seed, as separate runs would. The synthesizer is built once per trial (its per-line
 * token counts are measured then), like a CLI run that synthesizes its whole workload from one synthesizer.
 *
 * <p>{@code -p corpus=generated} (default): 84 lines of plain English verse built here; {@code -p corpus=PATH}: the
 * lines of a UTF-8 text file (llmperf's sonnet.txt, for example).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PromptSynthesisBenchmark {
    static final int PROMPTS = 200;

    @Param({"generated"})
    public String corpus;

    @Param({"EXACT", "LLMPERF"})
    public PromptMode mode;

    private PromptSynthesizer synthesizer;
    private PromptParams params;
    private long seed;

    @Setup
    public void setUp() throws IOException {
        Tokenizer llama = Tokenizers.builtInLlama2();
        synthesizer = new PromptSynthesizer(llama, lines(corpus));
        params = PromptParams.llmperfDefaults(mode).withRequestCount(PROMPTS);
        synthesizer.synthesize(params); // first use
    }

    @Benchmark
    @OperationsPerInvocation(PROMPTS)
    public List<RequestSpec> synthesize() {
        return synthesizer.synthesize(new PromptParams(params.meanInputTokens(), params.stddevInputTokens(),
                params.meanOutputTokens(), params.stddevOutputTokens(), PROMPTS, mode, seed++));
    }

    private static List<String> lines(String corpus) throws IOException {
        if (!"generated".equals(corpus)) {
            String text = Files.readString(Path.of(corpus), StandardCharsets.UTF_8);
            List<String> lines = new ArrayList<>();
            int start = 0;
            for (int nl; (nl = text.indexOf('\n', start)) >= 0; start = nl + 1) lines.add(text.substring(start, nl + 1));
            if (start < text.length()) lines.add(text.substring(start));
            return lines;
        }
        String[] words = ("the a morning river quietly holds every golden lantern beneath distant harbor and "
                + "evening gardens remember silent promises while weary travelers wander across ancient "
                + "valleys toward bright summer orchards yet winter shadows linger upon hollow mountains").split(" ");
        PythonRandom random = new PythonRandom(84);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 84; i++) {
            StringBuilder line = new StringBuilder();
            int count = 7 + random.randbelow(5);
            for (int w = 0; w < count; w++) {
                String word = words[random.randbelow(words.length)];
                if (w == 0) word = Character.toUpperCase(word.charAt(0)) + word.substring(1);
                line.append(w == 0 ? "" : " ").append(word);
            }
            line.append(i % 4 == 3 ? "." : ",");
            if (i < 83) line.append('\n');
            lines.add(line.toString());
        }
        return lines;
    }
}
