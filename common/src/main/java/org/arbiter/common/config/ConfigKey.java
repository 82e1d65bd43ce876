package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.List;
import java.util.function.DoublePredicate;
import java.util.function.Function;

/**
 * One key of {@code cluster.yaml}, declared once: its name (the path below its section, such as
 * {@code liu.pi.kp}), its type, its default, its rule, its documentation and where a record holds its
 * value. Everything else is derived from the declaration, in the spirit of Kafka's {@code ConfigDef}:
 * the loader reads the key with {@link #read(Node)} (an error names the YAML path, the value and the
 * rule), a configuration built in code is checked with {@link #check} (the same rule and the same
 * message form), {@link ConfigWriter} writes the value with {@link #written}, and {@link ConfigDocs}
 * prints the key's row of the reference table in docs/configuration.md.
 *
 * <p>Keys whose shape is a list or a mapping of their own (match rules, TLS files, Kafka principals)
 * are declared with {@link #shaped} for the reference table; their section's reader reads them.
 *
 * <p>Immutable and thread-safe.
 *
 * @param <R> the record that holds the value
 * @param <T> the value's Java type
 */
public final class ConfigKey<R, T> {

    /** The kinds of value a key takes, each read and written in one way. */
    public enum Type {
        DURATION, NUMBER, INTEGER, BOOLEAN, CHOICE, STRING, BYTES, SHAPED
    }

    private static final DoublePredicate ANY = v -> true;

    private final String name;
    private final Type type;
    private final T defaultValue;
    private final Function<R, T> get;
    private final DoublePredicate rule;
    private final String ruleText;
    private final Class<? extends Choice> choices;
    private final long minBytes;
    private final String doc;
    private final String docDefault;
    private final String docRule;

    private ConfigKey(String name, Type type, T defaultValue, Function<R, T> get, DoublePredicate rule, String ruleText,
                      Class<? extends Choice> choices, long minBytes, String doc, String docDefault, String docRule) {
        this.name = requireNonNull(name, "name");
        this.type = requireNonNull(type, "type");
        this.defaultValue = defaultValue;
        this.get = get;
        this.rule = rule;
        this.ruleText = ruleText;
        this.choices = choices;
        this.minBytes = minBytes;
        this.doc = requireNonNull(doc, "doc");
        this.docDefault = docDefault;
        this.docRule = docRule;
    }

    /** A duration in seconds ({@code 250ms}, {@code 5s}, {@code 2m}, a bare number of seconds). */
    public static <R> ConfigKey<R, Double> duration(String name, Function<R, Double> get, double defaultSeconds,
                                                    DoublePredicate rule, String ruleText, String doc) {
        return new ConfigKey<>(name, Type.DURATION, defaultSeconds, get, rule, ruleText, null, 0, doc, null, null);
    }

    /** A number. */
    public static <R> ConfigKey<R, Double> number(String name, Function<R, Double> get, double defaultValue,
                                                  DoublePredicate rule, String ruleText, String doc) {
        return new ConfigKey<>(name, Type.NUMBER, defaultValue, get, rule, ruleText, null, 0, doc, null, null);
    }

    /** A number with no rule but being finite. */
    public static <R> ConfigKey<R, Double> number(String name, Function<R, Double> get, double defaultValue, String doc) {
        return new ConfigKey<>(name, Type.NUMBER, defaultValue, get, ANY, "a number", null, 0, doc, null, "number");
    }

    /** A whole number that fits an {@code int}. */
    public static <R> ConfigKey<R, Integer> integer(String name, Function<R, Integer> get, int defaultValue,
                                                    DoublePredicate rule, String ruleText, String doc) {
        return new ConfigKey<>(name, Type.INTEGER, defaultValue, get, rule, ruleText, null, 0, doc, null, null);
    }

    /** {@code true} or {@code false}. */
    public static <R> ConfigKey<R, Boolean> bool(String name, Function<R, Boolean> get, boolean defaultValue, String doc) {
        return new ConfigKey<>(name, Type.BOOLEAN, defaultValue, get, null, "true or false", null, 0, doc, null, null);
    }

    /** One of an enumeration's words. */
    public static <R, E extends Enum<E> & Choice> ConfigKey<R, E> choice(String name, Function<R, E> get, Class<E> type,
                                                                         E defaultValue, String doc) {
        return new ConfigKey<>(name, Type.CHOICE, defaultValue, get, null, null, type, 0, doc, null, null);
    }

    /** A string; {@code defaultValue} null means absent by default. */
    public static <R> ConfigKey<R, String> string(String name, Function<R, String> get, String defaultValue, String doc) {
        return new ConfigKey<>(name, Type.STRING, defaultValue, get, null, null, null, 0, doc, null, null);
    }

    /** A size in bytes ({@code 16KiB}, {@code 10MiB}, a bare number of bytes), at least {@code minBytes}. */
    public static <R> ConfigKey<R, Long> bytes(String name, Function<R, Long> get, long defaultBytes, long minBytes,
                                               String doc) {
        return new ConfigKey<>(name, Type.BYTES, defaultBytes, get, null, null, null, minBytes, doc, null, null);
    }

    /**
     * A key with a shape of its own (a list, a mapping, a word or a number): declared here for the
     * reference table, read by its section's reader.
     */
    public static <R> ConfigKey<R, Object> shaped(String name, String docDefault, String docRule, String doc) {
        return new ConfigKey<>(name, Type.SHAPED, null, null, null, null, null, 0, doc, docDefault, docRule);
    }

    /** This key with another text in the reference table's default column (e.g. {@code port + 100}). */
    public ConfigKey<R, T> docDefault(String text) {
        return new ConfigKey<>(name, type, defaultValue, get, rule, ruleText, choices, minBytes, doc, text, docRule);
    }

    /** This key with another text in the reference table's rule column. */
    public ConfigKey<R, T> docRule(String text) {
        return new ConfigKey<>(name, type, defaultValue, get, rule, ruleText, choices, minBytes, doc, docDefault, text);
    }

    /** The path below the section, e.g. {@code liu.pi.kp}. */
    public String name() {
        return name;
    }

    /** The last part of {@link #name()}, the key in its own mapping. */
    public String leaf() {
        return name.substring(name.lastIndexOf('.') + 1);
    }

    public Type type() {
        return type;
    }

    /** The value when the key is absent (null: absent by default, or required). */
    public T defaultValue() {
        return defaultValue;
    }

    /** The rule as error messages name it ({@code > 0}). */
    public String ruleText() {
        return ruleText;
    }

    /**
     * Reads the key from {@code parent}, the mapping that holds it; an absent key gives the default,
     * a bad value is recorded as an error and gives the default.
     */
    public T read(Node parent) {
        return read(parent, defaultValue);
    }

    /** {@link #read(Node)} with a default that depends on other keys (e.g. {@code adminPort}: port + 100). */
    @SuppressWarnings("unchecked")
    public T read(Node parent, T defaultNow) {
        String key = leaf();
        return switch (type) {
            case DURATION -> (T) (Double) parent.duration(key, (Double) defaultNow, rule, ruleText);
            case NUMBER -> (T) (Double) parent.number(key, (Double) defaultNow, rule, ruleText);
            case INTEGER -> (T) (Integer) parent.integer(key, (Integer) defaultNow, rule, ruleText);
            case BOOLEAN -> (T) (Boolean) parent.bool(key, (Boolean) defaultNow);
            case CHOICE -> (T) readChoice(parent, key, defaultNow);
            case STRING -> (T) parent.string(key, (String) defaultNow);
            case BYTES -> (T) (Long) parent.bytes(key, (Long) defaultNow, minBytes);
            case SHAPED -> throw new IllegalStateException(name + " is read by its section's reader");
        };
    }

    /** As {@link Node#choice(String, Class, Enum)}: an unknown word is recorded and gives the default. */
    private Object readChoice(Node parent, String key, Object defaultNow) {
        String s = parent.choice(key, defaultNow == null ? null : ((Choice) defaultNow).wireName(), choiceNames());
        if (s == null) {
            return null;
        }
        for (Choice c : choices.getEnumConstants()) {
            if (c.wireName().equals(s)) {
                return c;
            }
        }
        return defaultNow;
    }

    private String[] choiceNames() {
        return Arrays.stream(choices.getEnumConstants()).map(Choice::wireName).toArray(String[]::new);
    }

    /** The value {@code record} holds for this key. */
    public T valueIn(R record) {
        return get.apply(record);
    }

    /** The value as {@link ConfigWriter} writes it: a duration as {@code 5s}, a size as {@code 10MiB}, a word. */
    public Object written(R record) {
        return writtenValue(valueIn(record));
    }

    private Object writtenValue(T value) {
        if (value == null) {
            return null;
        }
        return switch (type) {
            case DURATION -> Durations.format((Double) value);
            case BYTES -> Durations.formatBytes((Long) value);
            case CHOICE -> ((Choice) value).wireName();
            default -> value;
        };
    }

    /**
     * Checks the value {@code record} holds against the key's rule, as the loader checks what is
     * written: a problem is added to {@code errors} as {@code path.key: value (expected: rule)}.
     */
    public void check(R record, String sectionPath, List<String> errors) {
        T v = valueIn(record);
        if (v == null) {
            return; // absent: nothing to check
        }
        String path = sectionPath.isEmpty() ? name : sectionPath + "." + name;
        switch (type) {
            case DURATION -> {
                double d = (Double) v;
                if (!(d >= 0 && d <= Durations.MAX_SECONDS) || !rule.test(d)) {
                    errors.add(path + ": " + (Double.isFinite(d) && d >= 0 ? Durations.format(d) : Double.toString(d))
                            + " (expected: " + ruleText + ")");
                }
            }
            case NUMBER -> {
                double d = (Double) v;
                if (!Double.isFinite(d) || !rule.test(d)) {
                    errors.add(path + ": " + Node.format(d) + " (expected: " + ruleText + ")");
                }
            }
            case INTEGER -> {
                int i = (Integer) v;
                if (!rule.test(i)) {
                    errors.add(path + ": " + i + " (expected: " + ruleText + ")");
                }
            }
            case BYTES -> {
                long b = (Long) v;
                if (b < minBytes) {
                    errors.add(path + ": " + b + " (expected: >= " + minBytes + " bytes)");
                }
            }
            case CHOICE, BOOLEAN, STRING, SHAPED -> {
                // typed by the record; strings are checked by their section's rules
            }
        }
    }

    /** The reference table's default column. */
    public String docDefault() {
        if (docDefault != null) {
            return docDefault;
        }
        if (defaultValue == null) {
            return "none";
        }
        return switch (type) {
            case NUMBER -> Node.format((Double) defaultValue);
            case STRING -> "`" + defaultValue + "`";
            default -> String.valueOf(writtenValue(defaultValue));
        };
    }

    /** The reference table's rule column. */
    public String docRule() {
        if (docRule != null) {
            return docRule;
        }
        return switch (type) {
            case DURATION -> "duration " + ruleText;
            case NUMBER, INTEGER -> ruleText;
            case BOOLEAN -> "true, false";
            case CHOICE -> String.join(", ", choiceNames());
            case STRING -> "string";
            case BYTES -> minBytes > 0 ? "size ≥ " + minBytes + " bytes" : "size";
            case SHAPED -> "";
        };
    }

    /** The reference table's meaning column. */
    public String doc() {
        return doc;
    }

    @Override
    public String toString() {
        return name;
    }
}
