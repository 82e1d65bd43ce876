package org.arbiter.common.config;

import static org.arbiter.common.config.ConfigKey.shaped;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code pools} list, declared once: each pool's name, servers and classes, with the rules across
 * pools (unique names; every server and every class in exactly one pool; known ids only). Absent or
 * empty: one pool of everything, as before pools existed.
 *
 * <p>Stateless and thread-safe.
 */
final class PoolsSection {

    private PoolsSection() {
    }

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    static final ConfigKey<PoolConfig, Object> NAME = shaped("name", "— (required)", ConfigValues.ID_RULE,
            "the pool, as allocations, decisions, `/metrics` and the console name it");
    static final ConfigKey<PoolConfig, Object> SERVERS = shaped("servers", "— (required)",
            "non-empty list of server ids; every server in exactly one pool",
            "the pool's servers: only its classes are sent to them, and its owner alone sets their N(g,s), "
                    + "sizing and power");
    static final ConfigKey<PoolConfig, Object> CLASSES = shaped("classes", "— (required)",
            "non-empty list of class names; every class in exactly one pool",
            "the classes the pool's servers serve; their weights w(g,c) share the pool's slots Σ_{s in pool} N(g,s)");

    static final List<ConfigKey<PoolConfig, ?>> KEYS = List.of(NAME, SERVERS, CLASSES);

    /** The pools; none given is an empty list (one implicit pool). */
    static List<PoolConfig> read(Node root, List<ClassConfig> classes, List<ServerConfig> servers) {
        List<PoolConfig> pools = new ArrayList<>();
        List<Node> nodes = root.list("pools");
        if (nodes.isEmpty()) {
            return pools;
        }
        for (Node p : nodes) {
            String name = ConfigValues.id(p, "name");
            List<String> s = names(p, "servers");
            List<String> c = names(p, "classes");
            p.finish();
            if (name != null) {
                pools.add(new PoolConfig(name, s, c));
            }
        }
        List<String> errors = new ArrayList<>();
        across(pools, classes.stream().map(ClassConfig::name).toList(), servers.stream().map(ServerConfig::id).toList(),
                errors);
        root.errors().addAll(errors);
        return pools;
    }

    private static List<String> names(Node p, String key) {
        List<String> out = new ArrayList<>();
        if (!p.require(key)) {
            return out;
        }
        JsonNode raw = p.rawValue(key);
        if (raw == null || !raw.isArray() || raw.isEmpty()) {
            p.error(key, Node.shown(String.valueOf(raw)) + " (expected: a non-empty list of ids)");
            return out;
        }
        for (int i = 0; i < raw.size(); i++) {
            JsonNode e = raw.get(i);
            if (!e.isTextual() || !ID.matcher(e.asText()).matches()) {
                p.error(key + "[" + i + "]", Node.shown(e.toString()) + " (expected: an id: letters, digits, '.', '_' or '-')");
            } else {
                out.add(e.asText());
            }
        }
        return out;
    }

    /** The rules across pools, one line each as {@code pools[i].key: value (expected: rule)}. */
    static void across(List<PoolConfig> pools, List<String> classes, List<String> servers, List<String> errors) {
        if (pools.isEmpty()) {
            return;
        }
        Set<String> knownClasses = Set.copyOf(classes);
        Set<String> knownServers = Set.copyOf(servers);
        Map<String, Integer> names = new HashMap<>();
        Map<String, String> serverPool = new LinkedHashMap<>();
        Map<String, String> classPool = new LinkedHashMap<>();
        for (int i = 0; i < pools.size(); i++) {
            PoolConfig p = pools.get(i);
            String path = "pools[" + i + "]";
            if (names.putIfAbsent(p.name(), i) != null) {
                errors.add(path + ".name: " + Node.shown(p.name()) + " (expected: a name no other pool has)");
            }
            if (p.servers().isEmpty()) {
                errors.add(path + ".servers: [] (expected: a non-empty list of server ids)");
            }
            if (p.classes().isEmpty()) {
                errors.add(path + ".classes: [] (expected: a non-empty list of class names)");
            }
            for (String s : p.servers()) {
                if (!knownServers.contains(s)) {
                    errors.add(path + ".servers: " + Node.shown(s) + " (expected: one of servers[].id " + few(servers) + ")");
                } else if (serverPool.putIfAbsent(s, p.name()) != null) {
                    errors.add(path + ".servers: " + Node.shown(s) + " (expected: a server in one pool only; it is in pool "
                            + Node.shown(serverPool.get(s)) + ")");
                }
            }
            for (String c : p.classes()) {
                if (!knownClasses.contains(c)) {
                    errors.add(path + ".classes: " + Node.shown(c) + " (expected: one of classes[].name " + few(classes) + ")");
                } else if (classPool.putIfAbsent(c, p.name()) != null) {
                    errors.add(path + ".classes: " + Node.shown(c) + " (expected: a class in one pool only; it is in pool "
                            + Node.shown(classPool.get(c)) + ")");
                }
            }
        }
        List<String> noPool = servers.stream().filter(s -> !serverPool.containsKey(s)).toList();
        if (!noPool.isEmpty()) {
            errors.add("pools: " + (noPool.size() == 1 ? "server " : "servers ") + few(noPool)
                    + (noPool.size() == 1 ? " is" : " are") + " in no pool (expected: every server in exactly one pool)");
        }
        List<String> noPoolClasses = classes.stream().filter(c -> !classPool.containsKey(c)).toList();
        if (!noPoolClasses.isEmpty()) {
            errors.add("pools: " + (noPoolClasses.size() == 1 ? "class " : "classes ") + few(noPoolClasses)
                    + (noPoolClasses.size() == 1 ? " is" : " are")
                    + " in no pool (expected: every class in exactly one pool)");
        }
    }

    /** Up to 8 names, each cut to its shown length, and how many in all when there are more. */
    private static String few(List<String> names) {
        List<String> shown = names.stream().limit(8).map(Node::shown).toList();
        String list = names.size() == 1 ? shown.get(0) : shown.toString();
        return names.size() <= 8 ? list : list.substring(0, list.length() - 1) + ", … (" + names.size() + " in all)]";
    }

    static void check(List<PoolConfig> pools, List<ClassConfig> classes, List<ServerConfig> servers,
                      List<String> errors) {
        for (int i = 0; i < pools.size(); i++) {
            PoolConfig p = pools.get(i);
            if (!ID.matcher(p.name()).matches()) {
                errors.add("pools[" + i + "].name: " + Node.shown(p.name()) + " (expected: letters, digits, '.', '_' or '-')");
            }
        }
        across(pools, classes.stream().map(ClassConfig::name).toList(), servers.stream().map(ServerConfig::id).toList(),
                errors);
    }

    static Map<String, Object> write(PoolConfig p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", p.name());
        m.put("servers", p.servers());
        m.put("classes", p.classes());
        return m;
    }
}
