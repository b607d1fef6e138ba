package io.llmperf4j.tokenize.prompt;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Where token lengths (prompt lengths, {@code max_tokens}) are drawn from, with the CPython-compatible
 * {@link PythonRandom}, so a seed fixes every length.
 *
 * <ul>
 *   <li>{@link Normal}: llmperf's {@code sample_random_positive_int}: {@code int(random.gauss(mean, stddev))},
 *       redrawn while {@code <= 0}, then clamped to {@code [min, max]}. Without clamps ({@code min} 1,
 *       {@code max} {@link #UNBOUNDED}) it draws exactly what llmperf draws. {@code stddev} 0 still consumes
 *       random numbers, like llmperf.</li>
 *   <li>{@link Uniform}: Python's {@code random.randint(min, max)} ({@code min + _randbelow(max - min + 1)}); its
 *       bounds are its clamps.</li>
 *   <li>{@link Fixed}: always the same value and draws no random numbers (unlike {@code normal} with stddev 0).</li>
 * </ul>
 * Text form ({@link #parse}, {@link #toString}): {@code normal:MEAN,STDDEV[,MIN,MAX]}, {@code uniform:MIN,MAX},
 * {@code fixed:N}.
 */
public sealed interface LengthDistribution permits LengthDistribution.Normal, LengthDistribution.Uniform,
        LengthDistribution.Fixed {

    /** No upper clamp. */
    int UNBOUNDED = Integer.MAX_VALUE;

    /** The accepted text forms, for error messages and help. */
    String FORMS = "normal:MEAN,STDDEV[,MIN,MAX], uniform:MIN,MAX or fixed:N (token counts, MIN >= 1)";

    /** One length, always within {@code [min(), max()]}. */
    int sample(PythonRandom random);

    /**
     * A prompt length of at least {@code minimum} tokens (the prompt's instruction prefix): drawn again while
     * shorter, as llmperf does.
     *
     * @throws IllegalArgumentException when no such length can be drawn
     */
    default int sampleAtLeast(PythonRandom random, int minimum) {
        if (max() < minimum) {
            throw new IllegalArgumentException("no input length >= " + minimum + " tokens (the prompt prefix) can be "
                    + "drawn from " + this + ": its maximum is " + max() + "; raise the input lengths");
        }
        for (int draw = 0; draw < LengthSampler.MAX_DRAWS; draw++) {
            int value = sample(random);
            if (value >= minimum) return value;
        }
        throw new IllegalArgumentException("no input length >= " + minimum + " tokens (the prompt prefix) in "
                + LengthSampler.MAX_DRAWS + " draws from " + this + "; raise the input lengths");
    }

    /** The smallest length this can give. */
    int min();

    /** The largest length this can give ({@link #UNBOUNDED} when unclamped). */
    int max();

    /**
     * The mean as llmperf's summary files name it ({@code mean_input_tokens}): normal's mean, uniform's midpoint
     * (rounded down), the fixed value.
     */
    int mean();

    /** The spread for summary files: normal's stddev, uniform's (rounded), 0 for fixed. */
    int stddev();

    /** Name and parameters for manifests and results, in a fixed order; clamps only when set. */
    Map<String, Object> parameters();

    /** llmperf's distribution: normal, redrawn while non-positive, no clamps. */
    static Normal normal(int mean, int stddev) {
        return new Normal(mean, stddev, 1, UNBOUNDED);
    }

    static Normal normal(int mean, int stddev, int min, int max) {
        return new Normal(mean, stddev, min, max);
    }

    static Uniform uniform(int min, int max) {
        return new Uniform(min, max);
    }

    static Fixed fixed(int value) {
        return new Fixed(value);
    }

    /**
     * Parses {@code normal:550,150}, {@code normal:550,150,100,1000}, {@code uniform:100,900} or {@code fixed:128}
     * (the form {@link #toString} gives).
     *
     * @throws IllegalArgumentException quoting the text and listing the accepted forms
     */
    static LengthDistribution parse(String text) {
        String trimmed = text == null ? "" : text.trim();
        int colon = trimmed.indexOf(':');
        if (colon < 0) throw badSpec(text, "missing ':'");
        String kind = trimmed.substring(0, colon).trim().toLowerCase(Locale.ROOT);
        String[] parts = trimmed.substring(colon + 1).split(",", -1);
        int[] values = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                values[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                throw badSpec(text, "'" + parts[i].trim() + "' is not an integer");
            }
        }
        try {
            return switch (kind) {
                case "normal" -> switch (values.length) {
                    case 2 -> normal(values[0], values[1]);
                    case 4 -> normal(values[0], values[1], values[2], values[3]);
                    default -> throw badSpec(text, "normal takes MEAN,STDDEV or MEAN,STDDEV,MIN,MAX");
                };
                case "uniform" -> {
                    if (values.length != 2) throw badSpec(text, "uniform takes MIN,MAX");
                    yield uniform(values[0], values[1]);
                }
                case "fixed" -> {
                    if (values.length != 1) throw badSpec(text, "fixed takes one value");
                    yield fixed(values[0]);
                }
                default -> throw badSpec(text, "unknown distribution '" + kind + "'");
            };
        } catch (IllegalArgumentException e) {
            if (e.getMessage().startsWith("Invalid length distribution")) throw e;
            throw badSpec(text, e.getMessage());
        }
    }

    private static IllegalArgumentException badSpec(String text, String why) {
        return new IllegalArgumentException("Invalid length distribution '" + text + "' (" + why + "); use " + FORMS);
    }

    /**
     * llmperf's {@code sample_random_positive_int(mean, stddev)}, clamped to {@code [min, max]}.
     *
     * @param min at least 1 (llmperf's redraw makes 1 the implicit minimum)
     * @param max at least {@code min}; {@link #UNBOUNDED} for none
     */
    record Normal(int mean, int stddev, int min, int max) implements LengthDistribution {
        public Normal {
            if (stddev < 0) throw new IllegalArgumentException("stddev (" + stddev + ") must be >= 0");
            checkBounds(min, max);
        }

        @Override
        public int sample(PythonRandom random) {
            int value = LengthSampler.samplePositiveInt(random, mean, stddev);
            return Math.max(min, Math.min(max, value));
        }

        @Override
        public int sampleAtLeast(PythonRandom random, int minimum) {
            if (min == 1 && max == UNBOUNDED) {
                return LengthSampler.samplePositiveIntAtLeast(random, mean, stddev, minimum); // llmperf's loop
            }
            return LengthDistribution.super.sampleAtLeast(random, minimum);
        }

        @Override
        public Map<String, Object> parameters() {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("distribution", "normal");
            map.put("mean", mean);
            map.put("stddev", stddev);
            putClamps(map, min, max);
            return map;
        }

        @Override
        public String toString() {
            return "normal:" + mean + "," + stddev + (min == 1 && max == UNBOUNDED ? "" : "," + min + "," + max);
        }
    }

    /** Python's {@code random.randint(min, max)}: both ends included. */
    record Uniform(int min, int max) implements LengthDistribution {
        public Uniform {
            checkBounds(min, max);
            if (max == UNBOUNDED) throw new IllegalArgumentException("uniform needs a finite max");
        }

        @Override
        public int sample(PythonRandom random) {
            return min + random.randbelow(max - min + 1);
        }

        @Override
        public int mean() {
            return (int) (((long) min + max) / 2);
        }

        @Override
        public int stddev() {
            double width = (double) max - min + 1;
            return (int) Math.round(Math.sqrt((width * width - 1) / 12.0));
        }

        @Override
        public Map<String, Object> parameters() {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("distribution", "uniform");
            map.put("min", min);
            map.put("max", max);
            return map;
        }

        @Override
        public String toString() {
            return "uniform:" + min + "," + max;
        }
    }

    /** Always {@code value}; draws nothing. */
    record Fixed(int value) implements LengthDistribution {
        public Fixed {
            if (value < 1) throw new IllegalArgumentException("fixed length (" + value + ") must be >= 1");
        }

        @Override
        public int sample(PythonRandom random) {
            return value;
        }

        @Override
        public int min() {
            return value;
        }

        @Override
        public int max() {
            return value;
        }

        @Override
        public int mean() {
            return value;
        }

        @Override
        public int stddev() {
            return 0;
        }

        @Override
        public Map<String, Object> parameters() {
            Map<String, Object> map = new LinkedHashMap<>();
            map.put("distribution", "fixed");
            map.put("value", value);
            return map;
        }

        @Override
        public String toString() {
            return "fixed:" + value;
        }
    }

    private static void checkBounds(int min, int max) {
        if (min < 1) throw new IllegalArgumentException("min (" + min + ") must be >= 1");
        if (max < min) throw new IllegalArgumentException("max (" + max + ") must be >= min (" + min + ")");
    }

    private static void putClamps(Map<String, Object> map, int min, int max) {
        if (min != 1) map.put("min", min);
        if (max != UNBOUNDED) map.put("max", max);
    }
}
