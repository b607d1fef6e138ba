package io.llmperf4j.engine.load;

import org.apache.commons.math3.linear.MatrixUtils;

/**
 * The variance of one least-squares coefficient robust to errors correlated along the rows' order (and of unequal
 * spread): Newey-West's, Bartlett weights 1 − lag / S up to lag S − 1, with the small-sample adjustment of Bell and
 * McCaffrey (as Imbens and Kolesár recommend for robust standard errors), so that a level's few requests do not make
 * it overconfident.
 *
 * <p>The bandwidth is S = 1.3 √n (Lazarus, Lewis, Stock and Watson, "HAR Inference: Recommendations for Practice",
 * 2018), not Newey and West's floor(4 (n / 100)^(2/9)): that rule minimises the variance estimate's mean squared error,
 * and is too short for a test's size under strong correlation (two lags for a 20-request level, four for 100; a queue
 * near capacity stays correlated over many more), where the wider one keeps the interval's coverage near its nominal
 * level at a modest cost in width.
 *
 * <p>The adjustment: with independent errors of one spread, the estimate is a quadratic form in them whose mean and
 * variance are known from the design alone. Scaling it by the inverse of its mean's bias makes it unbiased there (as
 * n / (n − p) does for the ordinary variance; the residuals' shrinkage would otherwise make the robust interval
 * narrower than the ordinary one for a short level), and its Satterthwaite degrees of freedom, (tr B)² / tr B², take
 * the place of n − p: the estimate is noisier than the ordinary one (it spends information on the autocovariances),
 * which the t quantile pays for, as the fixed-b theory of Kiefer and Vogelsang says it should.
 *
 * @param variance         the coefficient's adjusted variance
 * @param degreesOfFreedom the Student t degrees of freedom for its interval
 * @param bandwidth        S, the lags weighted (0 to S − 1)
 */
record NeweyWest(double variance, double degreesOfFreedom, int bandwidth) {

    /** S = 1.3 √n, at least 1 (no lag beyond the variance itself). */
    static int bandwidth(int n) {
        return Math.max(1, (int) Math.round(1.3 * Math.sqrt(n)));
    }

    /**
     * The robust variance of coefficient {@code k} of the fit of design {@code x} (rows in the order along which the
     * errors are correlated, the intercept's column included) that left {@code residuals}; null where it is not
     * defined (no residual degrees of freedom).
     *
     * @throws IllegalArgumentException (a {@code SingularMatrixException}) when x'x is singular
     */
    static NeweyWest of(double[][] x, double[] residuals, int k) {
        int n = x.length;
        int p = x[0].length;
        double[][] inverse = MatrixUtils.inverse(MatrixUtils.createRealMatrix(x).transpose()
                .multiply(MatrixUtils.createRealMatrix(x))).getData();
        // the coefficient is a' y with a = x (x'x)^-1 e_k; the estimate is e' A e, A_ts = w(|t − s|) a_t a_s
        double[] a = new double[n];
        for (int t = 0; t < n; t++) {
            for (int j = 0; j < p; j++) a[t] += x[t][j] * inverse[j][k];
        }
        int s = bandwidth(n);
        double estimate = 0;
        double[] ae = times(a, s, new double[][] {residuals})[0];
        for (int t = 0; t < n; t++) estimate += residuals[t] * ae[t];

        // with independent errors of variance σ²: the residuals are M ε (M = I − H, H = x (x'x)^-1 x'), so the
        // estimate is ε' B ε with B = M A M, mean σ² tr(AM), variance 2 σ⁴ tr(AMAM); the coefficient's true variance
        // is σ² tr(A) (A's diagonal is a_t², and Σ a_t² = ((x'x)^-1)_kk)
        double traceA = 0;
        double traceAA = 0;
        for (int t = 0; t < n; t++) {
            traceA += a[t] * a[t];
            for (int u = Math.max(0, t - s + 1); u < Math.min(n, t + s); u++) {
                double w = weight(Math.abs(t - u), s) * a[t] * a[u];
                traceAA += w * w;
            }
        }
        double[][] ax = times(a, s, columns(x)); // p columns of A x
        double[][] xax = new double[p][p];
        double[][] axax = new double[p][p];
        for (int i = 0; i < p; i++) {
            for (int j = 0; j < p; j++) {
                for (int t = 0; t < n; t++) {
                    xax[i][j] += x[t][i] * ax[j][t];
                    axax[i][j] += ax[i][t] * ax[j][t];
                }
            }
        }
        double[][] kMatrix = product(inverse, xax); // (x'x)^-1 x'Ax: tr(AH) = tr K, tr(AHAH) = tr K²
        double traceAM = traceA - trace(kMatrix);
        double traceAMAM = traceAA - 2 * trace(product(inverse, axax)) + trace(product(kMatrix, kMatrix));
        if (!(traceAM > 0) || !(traceAMAM > 0)) return null;
        return new NeweyWest(estimate * traceA / traceAM, traceAM * traceAM / traceAMAM, s);
    }

    /** The Bartlett weight of {@code lag} for bandwidth {@code s}. */
    private static double weight(int lag, int s) {
        return 1 - (double) lag / s;
    }

    /** A y for each column y of {@code columns} (A banded: |t − u| &lt; s). */
    private static double[][] times(double[] a, int s, double[][] columns) {
        int n = a.length;
        double[][] out = new double[columns.length][n];
        for (int c = 0; c < columns.length; c++) {
            double[] y = columns[c];
            for (int t = 0; t < n; t++) {
                double sum = 0;
                for (int u = Math.max(0, t - s + 1); u < Math.min(n, t + s); u++) {
                    sum += weight(Math.abs(t - u), s) * a[u] * y[u];
                }
                out[c][t] = a[t] * sum;
            }
        }
        return out;
    }

    private static double[][] columns(double[][] x) {
        double[][] out = new double[x[0].length][x.length];
        for (int t = 0; t < x.length; t++) {
            for (int j = 0; j < x[0].length; j++) out[j][t] = x[t][j];
        }
        return out;
    }

    private static double[][] product(double[][] l, double[][] r) {
        int p = l.length;
        double[][] out = new double[p][p];
        for (int i = 0; i < p; i++) {
            for (int j = 0; j < p; j++) {
                for (int m = 0; m < p; m++) out[i][j] += l[i][m] * r[m][j];
            }
        }
        return out;
    }

    private static double trace(double[][] m) {
        double sum = 0;
        for (int i = 0; i < m.length; i++) sum += m[i][i];
        return sum;
    }
}
