package org.arbiter.common.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes a {@link ClusterConfig} back as a typed tree, or that tree as YAML, with every default filled
 * in, in the same schema {@link ConfigLoader} reads (the output loads again to an equal configuration):
 * each section writes its declared keys ({@link ConfigKey#written}). {@link #toTree} keeps the
 * console users' password hashes and the tokens' digests (so the output loads again); {@link #view},
 * the console's, leaves them out.
 *
 * <p>Stateless and thread-safe.
 */
public final class ConfigWriter {

    private ConfigWriter() {
    }

    public static String toYaml(ClusterConfig c) {
        return toYaml(toTree(c));
    }

    /** A tree of {@link #toTree} or {@link #view} as YAML text. */
    public static String toYaml(Map<String, Object> tree) {
        try {
            return ConfigLoader.YAML.writeValueAsString(tree);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write configuration", e);
        }
    }

    /**
     * The configuration as the console shows it: {@link #toTree}'s tree with each console user and token
     * reduced to its name and role (password hashes and token digests left out).
     */
    public static Map<String, Object> view(ClusterConfig c) {
        Map<String, Object> tree = toTree(c);
        @SuppressWarnings("unchecked")
        Map<String, Object> console = (Map<String, Object>) tree.get("console");
        console.put("users", c.console().users().stream().map(u -> Map.of("name", String.valueOf(u.name()),
                "role", String.valueOf(u.role()))).toList());
        console.put("tokens", c.console().tokens().stream().map(t -> Map.of("name", String.valueOf(t.name()),
                "role", String.valueOf(t.role()))).toList());
        return tree;
    }

    /**
     * The configuration as a typed tree (mappings, lists, strings, numbers and booleans) in the schema
     * {@link ConfigLoader} reads, every default filled in.
     */
    public static Map<String, Object> toTree(ClusterConfig c) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("classes", c.classes().stream().map(ClassesSection::write).toList());
        root.put("servers", c.servers().stream().map(ServersSection::write).toList());
        root.put("gateways", c.gateways().stream().map(GatewaysSection::write).toList());
        root.put("dispatch", DispatchSection.write(c.dispatch()));
        root.put("control", ControlSection.write(c.control()));
        root.put("sizing", SizingSection.write(c.sizing()));
        root.put("power", PowerSection.write(c.power()));
        root.put("kafka", KafkaSection.write(c.kafka()));
        root.put("console", ConsoleSection.write(c.console()));
        root.put("gateway", GatewayHttpSection.write(c.gatewayHttp()));
        root.put("grm", GrmSection.write(c.grm()));
        if (!c.pools().isEmpty()) {
            root.put("pools", c.pools().stream().map(PoolsSection::write).toList());
        }
        return root;
    }
}
