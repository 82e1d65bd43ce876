package org.arbiter.common.config;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and formats the human durations and sizes used in {@code cluster.yaml} and scenario
 * files: {@code "250ms"}, {@code "5s"}, {@code "2m"}, {@code "1h"}, {@code "1.5s"}; sizes
 * {@code "512"}, {@code "16KiB"}, {@code "10MiB"}, {@code "1GiB"} (also KB/MB/GB as powers of
 * ten). A bare number is read as seconds (durations) or bytes (sizes).
 *
 * <p>Nothing saturates: a duration longer than {@link #MAX_SECONDS} (the longest a
 * {@link Duration} of nanoseconds or a {@code long} of nanoseconds holds, about 292 years) and a
 * size above {@link Long#MAX_VALUE} bytes are refused with {@link OutOfRange}.
 *
 * <p>Stateless and thread-safe.
 */
public final class Durations {

    private static final Pattern DURATION =
            Pattern.compile("\\s*([0-9]+(?:\\.[0-9]+)?|\\.[0-9]+)\\s*(ns|us|ms|s|m|h|d)?\\s*");
    private static final Pattern SIZE =
            Pattern.compile("\\s*([0-9]+(?:\\.[0-9]+)?)\\s*(B|KiB|MiB|GiB|KB|MB|GB|k|K|M|G)?\\s*");

    /** Longest duration accepted, in seconds: {@code Long.MAX_VALUE} nanoseconds, 106751 days and a bit. */
    public static final double MAX_SECONDS = Long.MAX_VALUE / 1e9;
    /** The rule a too long duration breaks. */
    public static final String DURATION_RULE = "at most 106751d, about 292 years";
    /** The rule a too large size breaks. */
    public static final String SIZE_RULE = "at most " + Long.MAX_VALUE + " bytes, 8EiB";

    private static final BigDecimal MAX_BYTES = BigDecimal.valueOf(Long.MAX_VALUE);

    private Durations() {
    }

    /** A duration or size that is well formed but beyond what can be held; {@link #rule()} says the limit. */
    public static final class OutOfRange extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;
        private final String rule;

        OutOfRange(String text, String rule) {
            super("'" + text + "' is out of range (expected: " + rule + ")");
            this.rule = rule;
        }

        /** The limit broken, as in {@code (expected: RULE)}. */
        public String rule() {
            return rule;
        }
    }

    /**
     * Checks that {@code seconds} is a finite duration within {@link #MAX_SECONDS} either way.
     *
     * @throws OutOfRange naming the value and the limit
     */
    public static double checkSeconds(double seconds, String text) {
        if (!Double.isFinite(seconds) || Math.abs(seconds) > MAX_SECONDS) {
            throw new OutOfRange(text, DURATION_RULE);
        }
        return seconds;
    }

    /**
     * Parses a duration into seconds.
     *
     * @throws IllegalArgumentException naming the text and the accepted form ({@link OutOfRange}
     *                                  when longer than {@link #MAX_SECONDS})
     */
    public static double parseSeconds(String text) {
        String t = text == null ? "" : text.trim();
        boolean negative = t.startsWith("-");
        Matcher m = DURATION.matcher(negative ? t.substring(1) : t);
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a duration (expected: a number with ms, s, m or h, e.g. 250ms, 5s, 2m)");
        }
        double value = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        double seconds = switch (unit) {
            case "ns" -> value / 1e9;
            case "us" -> value / 1e6;
            case "ms" -> value / 1e3;
            case "s" -> value;
            case "m" -> value * 60;
            case "h" -> value * 3600;
            case "d" -> value * 86400;
            default -> throw new AssertionError(unit);
        };
        return checkSeconds(negative ? -seconds : seconds, t);
    }

    /** Parses a duration into a {@link Duration} (nanosecond precision). */
    public static Duration parse(String text) {
        return Duration.ofNanos(Math.round(parseSeconds(text) * 1e9));
    }

    /**
     * Parses a size in bytes (rounded to a whole byte).
     *
     * @throws IllegalArgumentException naming the text and the accepted form ({@link OutOfRange}
     *                                  above {@link Long#MAX_VALUE} bytes)
     */
    public static long parseBytes(String text) {
        Matcher m = SIZE.matcher(text == null ? "" : text);
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a size (expected: a number with B, KiB, MiB or GiB, e.g. 10MiB)");
        }
        BigDecimal value = new BigDecimal(m.group(1));
        String unit = m.group(2) == null ? "B" : m.group(2);
        long factor = switch (unit) {
            case "B" -> 1;
            case "KiB", "k", "K" -> 1L << 10;
            case "MiB", "M" -> 1L << 20;
            case "GiB", "G" -> 1L << 30;
            case "KB" -> 1_000;
            case "MB" -> 1_000_000;
            case "GB" -> 1_000_000_000;
            default -> throw new AssertionError(unit);
        };
        BigDecimal bytes = value.multiply(BigDecimal.valueOf(factor)).setScale(0, RoundingMode.HALF_UP);
        if (bytes.compareTo(MAX_BYTES) > 0) {
            throw new OutOfRange(text.trim(), SIZE_RULE);
        }
        return bytes.longValueExact();
    }

    /** Formats seconds the way a person writes them: {@code 0.25 -> "250ms"}, {@code 120 -> "2m"}. */
    public static String format(double seconds) {
        if (seconds != 0 && Math.abs(seconds) < 1) {
            return trim(seconds * 1000) + "ms";
        }
        if (Math.abs(seconds) >= 3600 && seconds % 3600 == 0) {
            return trim(seconds / 3600) + "h";
        }
        if (Math.abs(seconds) >= 60 && seconds % 60 == 0) {
            return trim(seconds / 60) + "m";
        }
        return trim(seconds) + "s";
    }

    /** Formats a byte count: {@code 10485760 -> "10MiB"}. */
    public static String formatBytes(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + "GiB";
        }
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + "MiB";
        }
        if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) {
            return (bytes >> 10) + "KiB";
        }
        return bytes + "B";
    }

    private static String trim(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        // Plain digits, never "3.3E103": what format writes, parseSeconds reads back (found by fuzzing).
        return BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
    }
}
