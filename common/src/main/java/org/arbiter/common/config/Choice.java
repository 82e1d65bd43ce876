package org.arbiter.common.config;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A policy of {@code cluster.yaml} that is one of a fixed set of words: implemented by the
 * configuration's enums ({@link DispatchConfig.Scheduler}, {@link SizingConfig.Estimator}, ...). The
 * {@link #wireName()} is the word the operator writes and {@link ConfigWriter} writes back; each
 * enum's {@code toString()} returns it too, so logs and messages read as before the policies were
 * typed. {@link Node#choice(String, Class, Enum)} reads one with the loader's path-named errors.
 */
public interface Choice {

    /** The word in {@code cluster.yaml}, e.g. {@code least-outstanding}. */
    String wireName();

    /** The constant of {@code type} written {@code name}, if any. */
    static <E extends Enum<E> & Choice> Optional<E> find(Class<E> type, String name) {
        for (E e : type.getEnumConstants()) {
            if (e.wireName().equals(name)) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }

    /**
     * The constant of {@code type} written {@code name}.
     *
     * @throws IllegalArgumentException {@code name (expected: one of a, b, c)}
     */
    static <E extends Enum<E> & Choice> E of(Class<E> type, String name) {
        return find(type, name).orElseThrow(() -> new IllegalArgumentException(
                name + " (expected: one of " + String.join(", ", names(type)) + ")"));
    }

    /** The words of {@code type}, in declaration order. */
    static <E extends Enum<E> & Choice> String[] names(Class<E> type) {
        return Arrays.stream(type.getEnumConstants()).map(Choice::wireName).toArray(String[]::new);
    }

    /** The words of {@code type} joined with ", ". */
    static <E extends Enum<E> & Choice> String list(Class<E> type) {
        return Arrays.stream(type.getEnumConstants()).map(Choice::wireName).collect(Collectors.joining(", "));
    }
}
