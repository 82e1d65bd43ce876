package org.arbiter.common.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The reference tables of docs/configuration.md, generated from the keys' declarations. In the page,
 * each table stands between {@code <!-- schema:SECTION -->} and {@code <!-- /schema:SECTION -->};
 * {@link #render} replaces what stands there with the table of that section's keys (key, default,
 * rule, meaning). {@code ConfigDocsTest} fails when the committed page differs and prints how to
 * regenerate it:
 *
 * <pre>./mvnw -B -ntp -q -o test -pl common -Dtest=ConfigDocsTest -Dconfig.docs.write=true</pre>
 *
 * <p>Stateless and thread-safe.
 */
public final class ConfigDocs {

    private static final Pattern BLOCK = Pattern.compile(
            "<!-- schema:([a-z]+) -->\\n.*?<!-- /schema:\\1 -->", Pattern.DOTALL);

    private ConfigDocs() {
    }

    /** Every documented section by its name in the markers, in the page's order. */
    static Map<String, List<? extends ConfigKey<?, ?>>> sections() {
        Map<String, List<? extends ConfigKey<?, ?>>> s = new LinkedHashMap<>();
        s.put("classes", ClassesSection.KEYS);
        s.put("servers", ServersSection.KEYS);
        s.put("gateways", GatewaysSection.KEYS);
        s.put("gateway", GatewayHttpSection.KEYS);
        s.put("dispatch", DispatchSection.KEYS);
        s.put("control", ControlSection.KEYS);
        s.put("sizing", SizingSection.KEYS);
        s.put("power", PowerSection.KEYS);
        s.put("kafka", KafkaSection.KEYS);
        s.put("security", KafkaSection.SECURITY_KEYS);
        s.put("console", ConsoleSection.KEYS);
        s.put("grm", GrmSection.KEYS);
        s.put("pools", PoolsSection.KEYS);
        return s;
    }

    /** The reference table of one section's keys, as Markdown. */
    public static String table(String section) {
        List<? extends ConfigKey<?, ?>> keys = sections().get(section);
        if (keys == null) {
            throw new IllegalArgumentException(section + " (expected: one of " + sections().keySet() + ")");
        }
        StringBuilder out = new StringBuilder("| key | default | rule | meaning |\n| --- | --- | --- | --- |\n");
        for (ConfigKey<?, ?> k : keys) {
            out.append("| `").append(k.name()).append("` | ").append(cell(k.docDefault())).append(" | ")
                    .append(cell(ruleCell(k.docRule()))).append(" | ").append(cell(k.doc())).append(" |\n");
        }
        return out.toString();
    }

    /** The rule as a reader writes it: {@code ≥}, {@code ≤}. */
    private static String ruleCell(String rule) {
        return rule.replace(">=", "≥").replace("<=", "≤");
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    /** {@code markdown} with every marked table replaced by the generated one. */
    public static String render(String markdown) {
        Matcher m = BLOCK.matcher(markdown);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            m.appendReplacement(out, Matcher.quoteReplacement(
                    "<!-- schema:" + name + " -->\n" + table(name) + "<!-- /schema:" + name + " -->"));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** The sections the page marks, in its order. */
    static List<String> marked(String markdown) {
        return BLOCK.matcher(markdown).results().map(r -> r.group(1)).toList();
    }

    /** Regenerates the tables of the page named by {@code args[0]} (default docs/configuration.md) in place. */
    public static void main(String[] args) throws IOException {
        Path page = Path.of(args.length > 0 ? args[0] : "docs/configuration.md");
        String text = Files.readString(page, StandardCharsets.UTF_8);
        Files.writeString(page, render(text), StandardCharsets.UTF_8);
    }
}
