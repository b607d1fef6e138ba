package io.llmperf4j.datasets;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A distribution of whole numbers >= 0, as the session flags give it: {@code fixed:N}, {@code uniform:MIN,MAX}
 * (inclusive) or {@code normal:MEAN,SD[,MIN,MAX]} (rounded, clamped to [MIN, MAX]; MIN defaults to 0). Turns per
 * session ({@code --turns}) and think times in ms ({@code --think-time}). Draws use only
 * {@link SplittableRandom}, so a seed gives the same values on every JVM.
 */
public record IntDistribution(String kind, double a, double b, long min, long max) {

    public static final String FORMS = "N, fixed:N, uniform:MIN,MAX or normal:MEAN,SD[,MIN,MAX]";

    public IntDistribution {
        if (min < 0 || max < min) {
            throw new IllegalArgumentException("the bounds must satisfy 0 <= MIN <= MAX (got " + min + ", " + max + ")");
        }
    }

    /**
     * Parses one of {@link #FORMS}; a bare number is {@code fixed:N}.
     *
     * @throws IllegalArgumentException naming the text and what is wrong
     */
    public static IntDistribution parse(String text) {
        String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        int colon = t.indexOf(':');
        String kind = colon < 0 ? "fixed" : t.substring(0, colon).strip();
        String[] parts = (colon < 0 ? t : t.substring(colon + 1)).split(",", -1);
        double[] v = new double[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                v[i] = Double.parseDouble(parts[i].strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "': '" + parts[i].strip() + "' is not a number; use "
                        + FORMS);
            }
            if (!(v[i] >= 0) || Double.isInfinite(v[i])) {
                throw new IllegalArgumentException("'" + text + "': values must be finite and >= 0");
            }
        }
        try {
            return switch (kind) {
                case "fixed" -> {
                    if (v.length != 1) throw new IllegalArgumentException("fixed takes one value");
                    long n = Math.round(v[0]);
                    yield new IntDistribution("fixed", n, 0, n, n);
                }
                case "uniform" -> {
                    if (v.length != 2) throw new IllegalArgumentException("uniform takes MIN,MAX");
                    yield new IntDistribution("uniform", v[0], v[1], Math.round(v[0]), Math.round(v[1]));
                }
                case "normal" -> {
                    if (v.length != 2 && v.length != 4) {
                        throw new IllegalArgumentException("normal takes MEAN,SD or MEAN,SD,MIN,MAX");
                    }
                    long lo = v.length == 4 ? Math.round(v[2]) : 0;
                    long hi = v.length == 4 ? Math.round(v[3]) : Long.MAX_VALUE / 4;
                    yield new IntDistribution("normal", v[0], v[1], lo, hi);
                }
                default -> throw new IllegalArgumentException("unknown distribution '" + kind + "'");
            };
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + text + "': " + e.getMessage() + " (use " + FORMS + ")");
        }
    }

    public static IntDistribution fixed(long n) {
        return new IntDistribution("fixed", n, 0, n, n);
    }

    /** One draw. */
    public long sample(SplittableRandom random) {
        return switch (kind) {
            case "fixed" -> min;
            case "uniform" -> min + random.nextLong(max - min + 1);
            default -> {
                // Box-Muller with StrictMath: the same value on every platform
                double u1 = 1.0 - random.nextDouble();
                double u2 = random.nextDouble();
                double z = StrictMath.sqrt(-2 * StrictMath.log(u1)) * StrictMath.cos(2 * Math.PI * u2);
                yield Math.max(min, Math.min(max, Math.round(a + b * z)));
            }
        };
    }

    /** The parameters for a manifest's generation entry. */
    public Map<String, Object> parameters() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("kind", kind);
        switch (kind) {
            case "fixed" -> p.put("value", min);
            case "uniform" -> {
                p.put("min", min);
                p.put("max", max);
            }
            default -> {
                p.put("mean", a);
                p.put("stddev", b);
                p.put("min", min);
                p.put("max", max);
            }
        }
        return p;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case "fixed" -> "fixed:" + min;
            case "uniform" -> "uniform:" + min + "," + max;
            default -> "normal:" + a + "," + b + "," + min + "," + max;
        };
    }
}
