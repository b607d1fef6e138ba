package io.llmperf4j.report.search;

/**
 * The statistics a capacity search decides with: binomial tails, the distribution-free confidence interval of a
 * percentile from order statistics (the bound MLPerf LoadGen's early stopping uses), and the Wilson score interval
 * of a proportion (GuideLLM's goodput search).
 */
public final class SearchStatistics {
    /** z of a two-sided 95 % interval: Φ⁻¹(0.975). */
    public static final double Z95 = 1.959963984540054;

    private SearchStatistics() {
    }

    /** P(X ≤ k) for X ~ Binomial(n, p). */
    public static double binomialCdf(long k, long n, double p) {
        if (k < 0) return 0;
        if (k >= n) return 1;
        if (p <= 0) return 1;
        if (p >= 1) return 0;
        // P(X <= k) = I_{1-p}(n - k, k + 1)
        return regularizedBeta(1 - p, n - k, k + 1);
    }

    /**
     * The 1-based ranks {@code [low, high]} of the order statistics that bound the {@code q}-quantile with two-sided
     * confidence {@code 1 - alpha}: {@code x(low) ≤ Q(q) ≤ x(high)} with probability ≥ 1 − alpha for any continuous
     * distribution. {@code low} is 0 when no sample is low enough (no lower bound yet), {@code high} is n + 1 when
     * none is high enough (no upper bound yet).
     *
     * <p>The number of samples below Q(q) is Binomial(n, q): {@code high} is the least u with P(X ≤ u − 1) ≥
     * 1 − alpha/2, {@code low} the largest l with P(X ≤ l − 1) ≤ alpha/2.
     */
    public static int[] quantileRanks(int n, double q, double alpha) {
        double tail = alpha / 2;
        // P(X <= k - 1) grows with k: binary searches
        int lo = 1;
        int hi = n + 1; // n + 1: none qualifies
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (binomialCdf(mid - 1, n, q) >= 1 - tail) hi = mid; else lo = mid + 1;
        }
        int high = lo;
        lo = 0; // 0: none qualifies
        hi = n;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (binomialCdf(mid - 1, n, q) <= tail) lo = mid; else hi = mid - 1;
        }
        int low = lo;
        return new int[]{low, high};
    }

    /** The Wilson score interval {@code [low, high]} of {@code successes} out of {@code n}, clamped to [0, 1]. */
    public static double[] wilson(long successes, long n, double z) {
        if (n == 0) return new double[]{0, 1};
        double p = (double) successes / n;
        double z2 = z * z;
        double centre = p + z2 / (2.0 * n);
        double half = z * Math.sqrt(p * (1 - p) / n + z2 / (4.0 * n * n));
        double denominator = 1 + z2 / n;
        return new double[]{Math.max(0, (centre - half) / denominator), Math.min(1, (centre + half) / denominator)};
    }

    /** The regularized incomplete beta function I_x(a, b) (continued fraction, Numerical Recipes' betai). */
    static double regularizedBeta(double x, double a, double b) {
        if (x <= 0) return 0;
        if (x >= 1) return 1;
        double lnFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x);
        double front = Math.exp(lnFront);
        if (x < (a + 1) / (a + b + 2)) {
            return front * betaContinuedFraction(x, a, b) / a;
        }
        return 1 - front * betaContinuedFraction(1 - x, b, a) / b;
    }

    private static double betaContinuedFraction(double x, double a, double b) {
        final double tiny = 1e-300;
        double qab = a + b;
        double qap = a + 1;
        double qam = a - 1;
        double c = 1;
        double d = 1 - qab * x / qap;
        if (Math.abs(d) < tiny) d = tiny;
        d = 1 / d;
        double h = d;
        for (int m = 1; m <= 10_000; m++) {
            int m2 = 2 * m;
            double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
            d = 1 + aa * d;
            if (Math.abs(d) < tiny) d = tiny;
            c = 1 + aa / c;
            if (Math.abs(c) < tiny) c = tiny;
            d = 1 / d;
            h *= d * c;
            aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
            d = 1 + aa * d;
            if (Math.abs(d) < tiny) d = tiny;
            c = 1 + aa / c;
            if (Math.abs(c) < tiny) c = tiny;
            d = 1 / d;
            double delta = d * c;
            h *= delta;
            if (Math.abs(delta - 1) < 1e-15) break;
        }
        return h;
    }

    /** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9). */
    static double logGamma(double x) {
        if (x < 0.5) {
            return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
        }
        double[] g = {0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
                -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
                1.5056327351493116e-7};
        double xx = x - 1;
        double a = g[0];
        double t = xx + 7.5;
        for (int i = 1; i < 9; i++) a += g[i] / (xx + i);
        return 0.5 * Math.log(2 * Math.PI) + (xx + 0.5) * Math.log(t) - t + Math.log(a);
    }
}
