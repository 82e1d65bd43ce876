package org.arbiter.common.message;

/**
 * The range of every numeric field of an {@link OperatorOverride}: the one definition the record's
 * compact constructor (so {@link MessageCodec#decode}), the console's request reader and the GRM
 * check against. NaN and infinities are outside every range. The bounds keep every conversion the
 * GRM makes exact: a weight times the granularity (at most 1000) fits an {@code int}, an N_s
 * converts to an {@code int} without rounding.
 *
 * <table>
 *   <caption>override ranges</caption>
 *   <tr><th>kind</th><th>field</th><th>range</th></tr>
 *   <tr><td>weight</td><td>value</td><td>0 to 1 000 000 server slots</td></tr>
 *   <tr><td>concurrency</td><td>value</td><td>a whole number from 1 to 100 000</td></tr>
 *   <tr><td>target</td><td>value</td><td>more than 0, at most 86 400 seconds</td></tr>
 *   <tr><td>utility</td><td>phi</td><td>0 to 1 000 000</td></tr>
 *   <tr><td>utility</td><td>alpha, beta</td><td>more than 0, at most 10</td></tr>
 * </table>
 *
 * <p>Immutable and thread-safe.
 */
public enum OverrideRange {

    /** w(g,c) pinned, in server slots. */
    WEIGHT("value", 0, true, 1_000_000, false),
    /** N_s pinned. */
    CONCURRENCY("value", 1, true, 100_000, true),
    /** τ_c in seconds. */
    TARGET("value", 0, false, 86_400, false),
    /** φ of 003 eq. 7. */
    PHI("phi", 0, true, 1_000_000, false),
    /** α of 003 eq. 7 (an exponent: (10 τ)^10 stays finite for any target in range). */
    ALPHA("alpha", 0, false, 10, false),
    /** β of 003 eq. 7. */
    BETA("beta", 0, false, 10, false);

    private final String field;
    private final double min;
    private final boolean minIncluded;
    private final double max;
    private final boolean whole;

    OverrideRange(String field, double min, boolean minIncluded, double max, boolean whole) {
        this.field = field;
        this.min = min;
        this.minIncluded = minIncluded;
        this.max = max;
        this.whole = whole;
    }

    /** The JSON field the range applies to. */
    public String field() {
        return field;
    }

    /** The least value (included or not, see {@link #minIncluded()}). */
    public double min() {
        return min;
    }

    public boolean minIncluded() {
        return minIncluded;
    }

    /** The greatest value, always included. */
    public double max() {
        return max;
    }

    /** True when only whole numbers are allowed. */
    public boolean whole() {
        return whole;
    }

    /** True when {@code value} is in range (false for NaN and infinities). */
    public boolean contains(double value) {
        return Double.isFinite(value) && (minIncluded ? value >= min : value > min) && value <= max
                && (!whole || value == Math.rint(value));
    }

    /** The rule as error messages state it: {@code between 0 and 1000000}. */
    public String rule() {
        if (whole) {
            return "a whole number from " + format(min) + " to " + format(max);
        }
        return minIncluded ? "between " + format(min) + " and " + format(max)
                : "> " + format(min) + " and <= " + format(max);
    }

    /**
     * Checks one value.
     *
     * @return the value, when in range
     * @throws IllegalArgumentException {@code field: value (expected: rule)}
     */
    public double check(Double value) {
        if (value == null) {
            throw new IllegalArgumentException(field + ": missing (expected: " + rule() + ")");
        }
        if (!contains(value)) {
            throw new IllegalArgumentException(field + ": " + value + " (expected: " + rule() + ")");
        }
        return value;
    }

    /** {@code value} as an {@code int}; only for {@link #CONCURRENCY}, whose range makes this exact. */
    public int toInt(double value) {
        if (!whole) {
            throw new IllegalStateException(name() + ": not a whole-number range");
        }
        return (int) check(value);
    }

    static String format(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }
}
