package org.arbiter.dist.metrics;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The metric names a PromQL expression selects, for checking a dashboard against what the
 * processes serve. A small tokenizer, not a PromQL parser: it skips strings, label matchers
 * ({@code {…}}), range and subquery brackets ({@code […]}), numbers and durations, Grafana
 * variables ({@code $x}, {@code ${x}}, {@code [[x]]}), function names (an identifier followed by
 * {@code (}), aggregation operators and keywords, and the label lists after {@code by}, {@code without},
 * {@code on}, {@code ignoring}, {@code group_left} and {@code group_right}. What is left are the
 * metric names, as written (so {@code x_bucket} stays {@code x_bucket}).
 */
final class PromQl {

    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on",
            "ignoring", "group_left", "group_right", "atan2", "inf", "nan", "start", "end",
            // aggregation operators, which may be followed by "by (…)" rather than "("
            "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk",
            "quantile", "limitk", "limit_ratio");
    private static final Set<String> LABEL_LISTS = Set.of("by", "without", "on", "ignoring", "group_left", "group_right");

    private PromQl() {
    }

    static Set<String> metricNames(String expr) {
        Set<String> out = new LinkedHashSet<>();
        int i = 0;
        int n = expr.length();
        while (i < n) {
            char c = expr.charAt(i);
            if (c == '"' || c == '\'' || c == '`') {
                i = skipString(expr, i);
            } else if (c == '{') {
                i = skipTo(expr, i, '}');
            } else if (c == '[') {
                i = skipTo(expr, i, ']');
            } else if (c == '$') {
                i++;
                if (i < n && expr.charAt(i) == '{') {
                    i = skipTo(expr, i, '}');
                } else {
                    while (i < n && isWord(expr.charAt(i))) {
                        i++;
                    }
                }
            } else if (Character.isDigit(c) || c == '.' && i + 1 < n && Character.isDigit(expr.charAt(i + 1))) {
                while (i < n && (isWord(expr.charAt(i)) || expr.charAt(i) == '.')) {
                    i++; // 0.95, 1e3, 5m
                }
            } else if (Character.isLetter(c) || c == '_' || c == ':') {
                int start = i;
                while (i < n && (isWord(expr.charAt(i)) || expr.charAt(i) == ':')) {
                    i++;
                }
                String word = expr.substring(start, i);
                int j = i;
                while (j < n && Character.isWhitespace(expr.charAt(j))) {
                    j++;
                }
                boolean call = j < n && expr.charAt(j) == '(';
                if (LABEL_LISTS.contains(word.toLowerCase(java.util.Locale.ROOT))) {
                    if (call) {
                        i = skipTo(expr, j, ')');
                    }
                } else if (!call && !KEYWORDS.contains(word.toLowerCase(java.util.Locale.ROOT))) {
                    out.add(word);
                }
            } else {
                i++;
            }
        }
        return out;
    }

    private static boolean isWord(char c) {
        return Character.isLetterOrDigit(c) || c == '_';
    }

    private static int skipString(String s, int i) {
        char q = s.charAt(i++);
        while (i < s.length() && s.charAt(i) != q) {
            i += s.charAt(i) == '\\' && q != '`' ? 2 : 1;
        }
        return i + 1;
    }

    /** Past the matching {@code close}, strings inside skipped. */
    private static int skipTo(String s, int i, char close) {
        i++;
        while (i < s.length() && s.charAt(i) != close) {
            char c = s.charAt(i);
            i = c == '"' || c == '\'' || c == '`' ? skipString(s, i) : i + 1;
        }
        return i + 1;
    }
}
