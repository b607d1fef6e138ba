package io.llmperf4j.datasets.images;

import io.llmperf4j.tokenize.prompt.PythonRandom;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * How many images a request carries: {@code N} or {@code fixed:N}, {@code uniform:MIN,MAX} (both included), or
 * {@code normal:MEAN,SD[,MIN,MAX]} ({@code int(gauss)} clamped to [MIN, MAX], MIN 0 by default). Counts may be 0,
 * but not all of them (nor a negative mean): such a workload would send no image.
 * Draws use {@link PythonRandom}, so a seed fixes them.
 */
public record CountDistribution(String kind, double mean, double stddev, int min, int max) {
    public static final String FORMS = "N, fixed:N, uniform:MIN,MAX or normal:MEAN,SD[,MIN,MAX] (counts >= 0)";
    /** More images than any API accepts in one request (OpenAI: 500). */
    public static final int MAX_COUNT = 500;

    public CountDistribution {
        if (min < 0 || max < min || max > MAX_COUNT) {
            throw new IllegalArgumentException("image counts must lie in 0.." + MAX_COUNT + " with MIN <= MAX (got "
                    + min + ".." + max + ")");
        }
        if (stddev < 0) throw new IllegalArgumentException("stddev (" + stddev + ") must be >= 0");
        // a count that can only be 0 sends no image at all: refused like -1, not run as a text-only workload
        if (max == 0 || mean < 0) {
            throw new IllegalArgumentException("image counts must lie in 0.." + MAX_COUNT + " with MIN <= MAX and "
                    + "give at least one image (got " + min + ".." + max + (mean < 0 ? ", mean " + mean : "") + ")");
        }
    }

    public static CountDistribution fixed(int n) {
        return new CountDistribution("fixed", n, 0, n, n);
    }

    /** @throws IllegalArgumentException quoting the text and listing {@link #FORMS} */
    public static CountDistribution parse(String text) {
        String value = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        try {
            int colon = value.indexOf(':');
            if (colon < 0) return fixed(Integer.parseInt(value));
            String kind = value.substring(0, colon);
            String[] parts = value.substring(colon + 1).split(",", -1);
            double[] v = new double[parts.length];
            for (int i = 0; i < parts.length; i++) v[i] = Double.parseDouble(parts[i].strip());
            switch (kind) {
                case "fixed":
                    if (v.length == 1 && v[0] == Math.rint(v[0])) return fixed((int) v[0]);
                    break;
                case "uniform":
                    if (v.length == 2 && isInt(v[0]) && isInt(v[1])) {
                        return new CountDistribution("uniform", (v[0] + v[1]) / 2, 0, (int) v[0], (int) v[1]);
                    }
                    break;
                case "normal":
                    if (v.length == 2) return new CountDistribution("normal", v[0], v[1], 0, MAX_COUNT);
                    if (v.length == 4 && isInt(v[2]) && isInt(v[3])) {
                        return new CountDistribution("normal", v[0], v[1], (int) v[2], (int) v[3]);
                    }
                    break;
                default:
                    break;
            }
        } catch (NumberFormatException e) {
            // the message below
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + text + "': " + e.getMessage(), e);
        }
        throw new IllegalArgumentException("'" + text + "' is not an image count; use " + FORMS);
    }

    private static boolean isInt(double v) {
        return v == Math.rint(v) && Math.abs(v) <= Integer.MAX_VALUE;
    }

    /** One count in [min, max]; {@code fixed} draws no random numbers. */
    public int sample(PythonRandom random) {
        return switch (kind) {
            case "fixed" -> min;
            case "uniform" -> min + random.randbelow(max - min + 1);
            default -> (int) Math.max(min, Math.min(max, (long) random.gauss(mean, stddev)));
        };
    }

    /** Name and parameters for manifests, in a fixed order. */
    public Map<String, Object> parameters() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("distribution", kind);
        switch (kind) {
            case "fixed" -> map.put("value", min);
            case "uniform" -> {
                map.put("min", min);
                map.put("max", max);
            }
            default -> {
                map.put("mean", mean);
                map.put("stddev", stddev);
                map.put("min", min);
                map.put("max", max);
            }
        }
        return map;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case "fixed" -> Integer.toString(min);
            case "uniform" -> "uniform:" + min + "," + max;
            default -> "normal:" + mean + "," + stddev + "," + min + "," + max;
        };
    }
}
