package org.arbiter.common.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What every section does with its declared keys alike: writes a record's values as a tree
 * ({@link ConfigWriter}) and checks them against the keys' rules (a configuration built in code).
 *
 * <p>Stateless and thread-safe.
 */
final class Sections {

    private Sections() {
    }

    /** The record's values under their keys, nested at the dots ({@code liu.pi.kp}); absent (null) values left out. */
    static <R> Map<String, Object> write(R record, List<ConfigKey<R, ?>> keys) {
        Map<String, Object> tree = new LinkedHashMap<>();
        for (ConfigKey<R, ?> k : keys) {
            if (k.type() != ConfigKey.Type.SHAPED) {
                put(tree, k.name(), k.written(record));
            }
        }
        return tree;
    }

    /** Puts {@code value} at the dotted {@code path} of {@code tree}, making the mappings on the way; null puts nothing. */
    @SuppressWarnings("unchecked")
    static void put(Map<String, Object> tree, String path, Object value) {
        if (value == null) {
            return;
        }
        int dot = path.indexOf('.');
        if (dot < 0) {
            tree.put(path, value);
            return;
        }
        Map<String, Object> child = (Map<String, Object>) tree.computeIfAbsent(path.substring(0, dot),
                k -> new LinkedHashMap<String, Object>());
        put(child, path.substring(dot + 1), value);
    }

    /** Checks each key's value in {@code record} against its rule; problems are named {@code path.key}. */
    static <R> void check(R record, String path, List<ConfigKey<R, ?>> keys, List<String> errors) {
        for (ConfigKey<R, ?> k : keys) {
            if (k.type() != ConfigKey.Type.SHAPED) {
                k.check(record, path, errors);
            }
        }
    }

    /** {@code path.key}, or {@code key} at the root. */
    static String path(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }
}
