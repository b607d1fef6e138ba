package io.llmperf4j.tokenize.prompt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.RequestSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LengthDistributionTest {

    /** CPython 3.11: {@code r = random.Random(11111); [r.randint(100, 200) for _ in range(8)]}. */
    @Test
    void uniformIsPythonsRandint() {
        PythonRandom random = new PythonRandom(11111);
        assertEquals(List.of(142, 103, 145, 146, 186, 151, 198, 114), draw(LengthDistribution.uniform(100, 200), random, 8));
    }

    /** CPython 3.11: llmperf's sample_random_positive_int(550, 150), eight times from seed 11111. */
    @Test
    void normalIsLlmperfsSampleRandomPositiveInt() {
        assertEquals(List.of(582, 538, 452, 666, 557, 477, 498, 490),
                draw(LengthDistribution.normal(550, 150), new PythonRandom(11111), 8));
    }

    @Test
    void clampsBoundNormalDrawsWithoutChangingTheRandomSequence() {
        List<Integer> clamped = draw(LengthDistribution.normal(550, 150, 500, 600), new PythonRandom(11111), 8);
        assertEquals(List.of(582, 538, 500, 600, 557, 500, 500, 500), clamped);
    }

    @Test
    void fixedDrawsNoRandomNumbers() {
        PythonRandom random = new PythonRandom(7);
        assertEquals(List.of(64, 64, 64), draw(LengthDistribution.fixed(64), random, 3));
        assertEquals(0.32383276483316237, random.random(), 0.0); // CPython: random.Random(7).random()
    }

    /** CPython 3.11, the synthesizer's draw order with randint prompt lengths and a fixed max_tokens. */
    @Test
    void synthesizerDrawsOtherDistributionsInLlmperfsOrder() {
        PromptSynthesizer synthesizer = new PromptSynthesizer(new WordTokenizer(), TestCorpora.numbered84());
        PromptParams params = PromptParams.llmperfDefaults(PromptMode.LLMPERF).withRequestCount(5);
        assertEquals(List.of(List.of(150, 785), List.of(150, 532), List.of(150, 326), List.of(150, 450), List.of(150, 588)),
                lengths(synthesizer.synthesize(params.withInputLengths(LengthDistribution.uniform(300, 800))
                        .withOutputLengths(LengthDistribution.fixed(150)))));
        assertEquals(List.of(List.of(15, 689), List.of(17, 573), List.of(10, 537), List.of(20, 595), List.of(19, 900)),
                lengths(synthesizer.synthesize(params.withOutputLengths(LengthDistribution.uniform(10, 20)))));
    }

    @Test
    void llmperfParamsAreNormalDistributions() {
        PromptParams defaults = PromptParams.llmperfDefaults(PromptMode.LLMPERF);
        assertEquals(LengthDistribution.normal(550, 150), defaults.inputLengths());
        assertEquals(new LengthDistribution.Normal(150, 80, 1, Integer.MAX_VALUE), defaults.outputLengths());
        assertEquals(550, defaults.meanInputTokens());
        assertEquals(80, defaults.stddevOutputTokens());
        assertEquals("stddevInputTokens (-1) must be >= 0", assertThrows(IllegalArgumentException.class,
                () -> new PromptParams(550, -1, 150, 80, 10, PromptMode.LLMPERF, 1)).getMessage());
    }

    @Test
    void aFixedLengthBelowThePromptPrefixIsRejectedAtOnce() {
        PromptSynthesizer synthesizer = new PromptSynthesizer(new WordTokenizer(), TestCorpora.numbered84());
        PromptParams params = PromptParams.llmperfDefaults(PromptMode.EXACT).withInputLengths(LengthDistribution.fixed(10));
        assertEquals("no input length >= 16 tokens (the prompt prefix) can be drawn from fixed:10: its maximum is 10; "
                + "raise the input lengths", assertThrows(IllegalArgumentException.class,
                () -> synthesizer.synthesize(params)).getMessage());
    }

    @Test
    void parsesAndPrintsTheTextForms() {
        assertEquals(LengthDistribution.normal(550, 150), LengthDistribution.parse("normal:550,150"));
        assertEquals(LengthDistribution.normal(550, 150, 100, 900), LengthDistribution.parse(" normal: 550, 150, 100, 900 "));
        assertEquals(LengthDistribution.uniform(1, 10), LengthDistribution.parse("uniform:1,10"));
        assertEquals(LengthDistribution.fixed(128), LengthDistribution.parse("FIXED:128"));
        for (String text : List.of("normal:550,150", "normal:550,150,100,900", "uniform:1,10", "fixed:128")) {
            assertEquals(text, LengthDistribution.parse(text).toString());
        }
        assertEquals("Invalid length distribution 'gauss:1,2' (unknown distribution 'gauss'); use "
                + LengthDistribution.FORMS, assertThrows(IllegalArgumentException.class,
                () -> LengthDistribution.parse("gauss:1,2")).getMessage());
        assertEquals("Invalid length distribution 'uniform:9,3' (max (3) must be >= min (9)); use "
                + LengthDistribution.FORMS, assertThrows(IllegalArgumentException.class,
                () -> LengthDistribution.parse("uniform:9,3")).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LengthDistribution.parse("fixed:x"))
                .getMessage().contains("'x' is not an integer"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LengthDistribution.parse("128"))
                .getMessage().contains("missing ':'"));
        assertThrows(IllegalArgumentException.class, () -> LengthDistribution.parse("fixed:0"));
    }

    @Test
    void describesItselfForManifests() {
        Map<String, Object> normal = new LinkedHashMap<>();
        normal.put("distribution", "normal");
        normal.put("mean", 550);
        normal.put("stddev", 150);
        assertEquals(normal, LengthDistribution.normal(550, 150).parameters());
        normal.put("max", 900);
        assertEquals(normal, LengthDistribution.normal(550, 150, 1, 900).parameters());
        assertEquals(List.of("distribution", "min", "max"), List.copyOf(LengthDistribution.uniform(1, 9).parameters().keySet()));
        assertEquals(5, LengthDistribution.uniform(1, 9).mean());
        assertEquals(3, LengthDistribution.uniform(1, 9).stddev()); // sqrt((81 - 1) / 12) = 2.58
        assertEquals(Map.of("distribution", "fixed", "value", 7), LengthDistribution.fixed(7).parameters());
    }

    private static List<Integer> draw(LengthDistribution distribution, PythonRandom random, int count) {
        List<Integer> values = new ArrayList<>();
        for (int i = 0; i < count; i++) values.add(distribution.sample(random));
        return values;
    }

    private static List<List<Integer>> lengths(List<RequestSpec> requests) {
        return requests.stream().map(r -> List.of(r.maxTokens(), r.numberInputTokens())).toList();
    }
}
