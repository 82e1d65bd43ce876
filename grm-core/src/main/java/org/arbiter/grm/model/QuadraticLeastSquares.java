package org.arbiter.grm.model;

/**
 * Least squares of L = aN² + bN + c over a subset of {a, b, c} (the others held at 0), by the
 * normal equations and Gauss-Jordan elimination with partial pivoting. Fitting every subset and
 * keeping the best one that meets a sign constraint is how the knee fit (004 eq. 7, KneeFit) and
 * the fluid model's latency (004 eq. 7, FluidModel) get a quadratic with non-negative
 * coefficients. Pure and stateless.
 */
public final class QuadraticLeastSquares {

    private QuadraticLeastSquares() {
    }

    /**
     * The parameters in {@code mask} (bit 0 = a, 1 = b, 2 = c) minimising Σ (aN² + bN + c − L)²
     * over the first {@code size} points, the others 0; null when the system is singular.
     *
     * @return {a, b, c}
     */
    public static double[] solve(int mask, double[] n, double[] l, int size) {
        return solve(mask, n, l, null, size);
    }

    /**
     * As {@link #solve(int, double[], double[], int)}, minimising Σ w²(aN² + bN + c − L)²: each
     * point's residual weighted by {@code w[i]} (null: all 1). With w = 1/L the fit minimises the
     * relative error.
     */
    public static double[] solve(int mask, double[] n, double[] l, double[] w, int size) {
        int[] idx = new int[3];
        int m = 0;
        for (int j = 0; j < 3; j++) {
            if ((mask & (1 << j)) != 0) {
                idx[m++] = j;
            }
        }
        double[][] ata = new double[m][m];
        double[] atb = new double[m];
        for (int i = 0; i < size; i++) {
            double wi = w == null ? 1 : w[i];
            double[] row = {wi * n[i] * n[i], wi * n[i], wi};
            for (int r = 0; r < m; r++) {
                atb[r] += row[idx[r]] * wi * l[i];
                for (int c2 = 0; c2 < m; c2++) {
                    ata[r][c2] += row[idx[r]] * row[idx[c2]];
                }
            }
        }
        double[] x = gauss(ata, atb);
        if (x == null) {
            return null;
        }
        double[] p = new double[3];
        for (int r = 0; r < m; r++) {
            p[idx[r]] = x[r];
        }
        return p;
    }

    /** Σ (aN² + bN + c − L)² of {@code p} = {a, b, c} over the first {@code size} points. */
    public static double squaredError(double[] p, double[] n, double[] l, int size) {
        return squaredError(p, n, l, null, size);
    }

    /** Σ w²(aN² + bN + c − L)² of {@code p} = {a, b, c} over the first {@code size} points (w null: all 1). */
    public static double squaredError(double[] p, double[] n, double[] l, double[] w, int size) {
        double err = 0;
        for (int i = 0; i < size; i++) {
            double r = (p[0] * n[i] * n[i] + p[1] * n[i] + p[2] - l[i]) * (w == null ? 1 : w[i]);
            err += r * r;
        }
        return err;
    }

    private static double[] gauss(double[][] a, double[] b) {
        int m = b.length;
        for (int col = 0; col < m; col++) {
            int pivot = col;
            for (int r = col + 1; r < m; r++) {
                if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) {
                    pivot = r;
                }
            }
            if (Math.abs(a[pivot][col]) < 1e-12) {
                return null;
            }
            double[] t = a[col];
            a[col] = a[pivot];
            a[pivot] = t;
            double tb = b[col];
            b[col] = b[pivot];
            b[pivot] = tb;
            for (int r = 0; r < m; r++) {
                if (r != col) {
                    double f = a[r][col] / a[col][col];
                    for (int c2 = col; c2 < m; c2++) {
                        a[r][c2] -= f * a[col][c2];
                    }
                    b[r] -= f * b[col];
                }
            }
        }
        double[] x = new double[m];
        for (int r = 0; r < m; r++) {
            x[r] = b[r] / a[r][r];
        }
        return x;
    }
}
