package org.arbiter.common.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.DoublePredicate;

/**
 * A cursor over one YAML/JSON object that reads typed fields, applies defaults and records every
 * problem as {@code path: value (expected: rule)} instead of stopping at the first. Calling
 * {@link #finish()} reports the keys nobody asked for as unknown, with a "did you mean" when one
 * is close. Used by {@link ConfigLoader} and by other modules' loaders (scenario files, solve input).
 *
 * <p>Not thread-safe; one per parse.
 */
public final class Node {

    /** Characters of a value quoted in an error message; a longer value is cut ({@link #shown}). */
    public static final int SHOWN_CHARS = 64;

    private final JsonNode node;
    private final String path;
    private final List<String> errors;
    private final Set<String> known = new LinkedHashSet<>();

    private Node(JsonNode node, String path, List<String> errors) {
        this.node = node;
        this.path = path;
        this.errors = errors;
    }

    /** The root of a document; {@code errors} collects every problem found below it. */
    public static Node root(JsonNode node, List<String> errors) {
        Node root = new Node(node, "", errors);
        if (node != null && !node.isNull() && !node.isMissingNode() && !node.isObject()) {
            errors.add("(root): " + describe(node) + " (expected: a mapping of keys to values)");
        }
        return root;
    }

    public String path() {
        return path;
    }

    public List<String> errors() {
        return errors;
    }

    /** The path of a child key, e.g. {@code classes[1].target}. */
    public String pathOf(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /** Records a problem at this object's child {@code key}. */
    public void error(String key, String valueAndRule) {
        errors.add(pathOf(key) + ": " + valueAndRule);
    }

    /** Records a problem at this object itself. */
    public void error(String valueAndRule) {
        errors.add((path.isEmpty() ? "(root)" : path) + ": " + valueAndRule);
    }

    public boolean has(String key) {
        known.add(key);
        JsonNode v = raw(key);
        return v != null && !v.isNull();
    }

    private JsonNode raw(String key) {
        return node != null && node.isObject() ? node.get(key) : null;
    }

    private JsonNode value(String key) {
        known.add(key);
        JsonNode v = raw(key);
        return v == null || v.isNull() ? null : v;
    }

    /** A required key that is absent is an error. */
    public boolean require(String key) {
        if (!has(key)) {
            error(key, "missing (expected: a value)");
            return false;
        }
        return true;
    }

    public String string(String key, String defaultValue) {
        JsonNode v = value(key);
        if (v == null) {
            return defaultValue;
        }
        if (!v.isValueNode()) {
            error(key, describe(v) + " (expected: a string)");
            return defaultValue;
        }
        return v.asText();
    }

    /** A string that must be one of {@code choices}. */
    public String choice(String key, String defaultValue, String... choices) {
        JsonNode raw = raw(key);
        // YAML 1.1 reads a bare off/on as a boolean: take it back as the word the operator wrote.
        String s = raw != null && raw.isBoolean() ? (raw.booleanValue() ? "on" : "off") : string(key, defaultValue);
        known.add(key);
        if (s == null) {
            return null;
        }
        for (String c : choices) {
            if (c.equals(s)) {
                return s;
            }
        }
        error(key, shown(s) + " (expected: one of " + String.join(", ", choices) + suggestion(s, List.of(choices)) + ")");
        return defaultValue;
    }

    /**
     * A policy that must be one of {@code type}'s words; an unknown word is an error naming the
     * path, the word and every allowed one (with a "did you mean"), and gives {@code defaultValue}.
     */
    public <E extends Enum<E> & Choice> E choice(String key, Class<E> type, E defaultValue) {
        String s = choice(key, defaultValue == null ? null : defaultValue.wireName(), Choice.names(type));
        return s == null ? null : Choice.find(type, s).orElse(defaultValue);
    }

    public boolean bool(String key, boolean defaultValue) {
        JsonNode v = value(key);
        if (v == null) {
            return defaultValue;
        }
        if (v.isBoolean()) {
            return v.booleanValue();
        }
        if (v.isTextual() && (v.asText().equals("true") || v.asText().equals("false"))) {
            return Boolean.parseBoolean(v.asText());
        }
        error(key, describe(v) + " (expected: true or false)");
        return defaultValue;
    }

    public double number(String key, double defaultValue, DoublePredicate rule, String ruleText) {
        JsonNode v = value(key);
        if (v == null) {
            return defaultValue;
        }
        double d;
        if (v.isNumber()) {
            d = v.doubleValue();
        } else if (v.isTextual()) {
            try {
                d = Double.parseDouble(v.asText().trim());
            } catch (NumberFormatException e) {
                error(key, describe(v) + " (expected: a number " + ruleText + ")");
                return defaultValue;
            }
        } else {
            error(key, describe(v) + " (expected: a number " + ruleText + ")");
            return defaultValue;
        }
        if (!Double.isFinite(d) || !rule.test(d)) {
            error(key, format(d) + " (expected: " + ruleText + ")");
            return defaultValue;
        }
        return d;
    }

    public int integer(String key, int defaultValue, DoublePredicate rule, String ruleText) {
        JsonNode v = value(key);
        if (v == null) {
            return defaultValue;
        }
        if (!(v.isIntegralNumber() || (v.isTextual() && v.asText().trim().matches("-?[0-9]+")))) {
            error(key, describe(v) + " (expected: a whole number " + ruleText + ")");
            return defaultValue;
        }
        if (v.isTextual()) {
            String digits = v.asText().trim().replaceFirst("^(-?)0+(?=[0-9])", "$1");
            if (digits.length() > 21) {
                // past any long; parsing and printing a huge BigInteger costs length² (issue 30)
                error(key, shown(digits) + " (expected: " + ruleText + ")");
                return defaultValue;
            }
        }
        // BigInteger: a number past the range of long must be an error, not wrap or throw (found by fuzzing).
        BigInteger big = v.isIntegralNumber() ? v.bigIntegerValue() : new BigInteger(v.asText().trim());
        if (big.bitLength() > 31 || !rule.test(big.intValue())) {
            error(key, big + " (expected: " + ruleText + ")");
            return defaultValue;
        }
        return big.intValue();
    }

    /** A duration in seconds: {@code "250ms"}, {@code "5s"}, {@code "2m"}, or a bare number of seconds. */
    public double duration(String key, double defaultSeconds, DoublePredicate rule, String ruleText) {
        JsonNode v = value(key);
        if (v == null) {
            return defaultSeconds;
        }
        double seconds;
        try {
            if (v.isNumber()) {
                seconds = Durations.checkSeconds(v.doubleValue(), v.asText());
            } else if (v.isTextual()) {
                seconds = Durations.parseSeconds(v.asText());
            } else {
                error(key, describe(v) + " (expected: a duration such as 250ms, 5s or 2m)");
                return defaultSeconds;
            }
        } catch (Durations.OutOfRange e) {
            error(key, shown(v.asText().trim()) + " (expected: " + e.rule() + ")");
            return defaultSeconds;
        } catch (IllegalArgumentException e) {
            error(key, shown(v.asText()) + " (expected: a duration such as 250ms, 5s or 2m)");
            return defaultSeconds;
        }
        if (!rule.test(seconds)) {
            error(key, (v.isTextual() ? shown(v.asText()) : format(seconds)) + " (expected: " + ruleText + ")");
            return defaultSeconds;
        }
        return seconds;
    }

    /** A size in bytes: {@code "10MiB"}, {@code "16KiB"}, or a bare number of bytes. */
    public long bytes(String key, long defaultBytes, long min) {
        JsonNode v = value(key);
        if (v == null) {
            return defaultBytes;
        }
        long b;
        if (v.isIntegralNumber()) {
            if (!v.canConvertToLong()) {
                error(key, shown(v.asText()) + " (expected: " + Durations.SIZE_RULE + ")");
                return defaultBytes;
            }
            b = v.longValue();
        } else if (v.isTextual()) {
            try {
                b = Durations.parseBytes(v.asText());
            } catch (Durations.OutOfRange e) {
                error(key, shown(v.asText().trim()) + " (expected: " + e.rule() + ")");
                return defaultBytes;
            } catch (IllegalArgumentException e) {
                error(key, shown(v.asText()) + " (expected: a size such as 16KiB or 10MiB)");
                return defaultBytes;
            }
        } else {
            error(key, describe(v) + " (expected: a size such as 16KiB or 10MiB)");
            return defaultBytes;
        }
        if (b < min) {
            error(key, (v.isTextual() ? shown(v.asText()) : Long.toString(b)) + " (expected: >= " + min + " bytes)");
            return defaultBytes;
        }
        return b;
    }

    /** A child object; absent gives an empty object (so every field takes its default). */
    public Node object(String key) {
        JsonNode v = value(key);
        if (v != null && !v.isObject()) {
            error(key, describe(v) + " (expected: a mapping)");
            v = null;
        }
        return new Node(v, pathOf(key), errors);
    }

    /** The elements of a child list, each as a cursor named {@code key[i]}. */
    public List<Node> list(String key) {
        JsonNode v = value(key);
        List<Node> out = new ArrayList<>();
        if (v == null) {
            return out;
        }
        if (!v.isArray()) {
            error(key, describe(v) + " (expected: a list)");
            return out;
        }
        for (int i = 0; i < v.size(); i++) {
            JsonNode e = v.get(i);
            String p = pathOf(key) + "[" + i + "]";
            if (!e.isObject()) {
                errors.add(p + ": " + describe(e) + " (expected: a mapping)");
                continue;
            }
            out.add(new Node(e, p, errors));
        }
        return out;
    }

    /** A mapping of names to scalar strings (e.g. headers, client properties). */
    public Map<String, String> stringMap(String key) {
        JsonNode v = value(key);
        Map<String, String> out = new LinkedHashMap<>();
        if (v == null) {
            return out;
        }
        if (!v.isObject()) {
            error(key, describe(v) + " (expected: a mapping)");
            return out;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isValueNode() || e.getValue().isNull()) {
                errors.add(pathOf(key) + "." + shown(e.getKey()) + ": " + describe(e.getValue()) + " (expected: a string)");
                continue;
            }
            out.put(e.getKey(), e.getValue().asText());
        }
        return out;
    }

    /** The keys of a child mapping, each as a cursor (for maps whose values are objects). */
    public Map<String, Node> objectMap(String key) {
        JsonNode v = value(key);
        Map<String, Node> out = new LinkedHashMap<>();
        if (v == null) {
            return out;
        }
        if (!v.isObject()) {
            error(key, describe(v) + " (expected: a mapping)");
            return out;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String p = pathOf(key) + "." + shown(e.getKey());
            if (e.getValue().isNull()) {
                out.put(e.getKey(), new Node(null, p, errors));
            } else if (!e.getValue().isObject()) {
                errors.add(p + ": " + describe(e.getValue()) + " (expected: a mapping)");
            } else {
                out.put(e.getKey(), new Node(e.getValue(), p, errors));
            }
        }
        return out;
    }

    /** The raw JSON value of a key, for callers with their own shapes. */
    public JsonNode rawValue(String key) {
        return value(key);
    }

    /** Reports every key of this object that no reader asked for. */
    public void finish() {
        if (node == null || !node.isObject()) {
            return;
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!known.contains(k)) {
                errors.add(pathOf(shown(k)) + ": unknown key (expected: one of " + String.join(", ", known)
                        + suggestion(k, known) + ")");
            }
        }
    }

    static String suggestion(String given, Collection<String> options) {
        if (given.length() > SHOWN_CHARS) {
            return "";  // no known word is that long; and the distance would cost length × length
        }
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String o : options) {
            int d = distance(given.toLowerCase(Locale.ROOT), o.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = o;
            }
        }
        if (best != null && bestDistance <= Math.max(1, given.length() / 3) && bestDistance < given.length()) {
            return "; did you mean '" + best + "'?";
        }
        return "";
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    static String describe(JsonNode v) {
        if (v == null || v.isNull()) {
            return "null";
        }
        if (v.isObject()) {
            return "a mapping";
        }
        if (v.isArray()) {
            return "a list";
        }
        return shown(v.asText());
    }

    /**
     * {@code s} as an error message quotes it: whole when at most {@link #SHOWN_CHARS} characters,
     * else its first {@value #SHOWN_CHARS} and its length ({@code "aaaa… (4000000 chars)"}).
     */
    public static String shown(String s) {
        if (s == null) {
            return "null";
        }
        return s.length() <= SHOWN_CHARS ? s : s.substring(0, SHOWN_CHARS) + "… (" + s.length() + " chars)";
    }

    static String format(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }
}
