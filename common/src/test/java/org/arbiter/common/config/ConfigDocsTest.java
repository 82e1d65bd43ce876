package org.arbiter.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md's reference tables are the schema's: each marked table must equal the one
 * {@link ConfigDocs} generates from the keys' declarations. Regenerate them with
 * {@code ./mvnw -B -ntp -q -o test -pl common -Dtest=ConfigDocsTest -Dconfig.docs.write=true}.
 */
final class ConfigDocsTest {

    static final Path PAGE = Path.of("..", "docs", "configuration.md");
    static final String REGENERATE = "./mvnw -B -ntp -q -o test -pl common -Dtest=ConfigDocsTest -Dconfig.docs.write=true";

    @Test
    void referenceTables_equalTheSchema() throws IOException {
        String committed = Files.readString(PAGE, StandardCharsets.UTF_8);
        String generated = ConfigDocs.render(committed);
        if (Boolean.getBoolean("config.docs.write") && !generated.equals(committed)) {
            Files.writeString(PAGE, generated, StandardCharsets.UTF_8);
            committed = generated;
        }
        if (!generated.equals(committed)) {
            fail("docs/configuration.md's reference tables differ from the schema (- committed, + schema):\n"
                    + diff(committed, generated) + "\nregenerate them with: " + REGENERATE);
        }
    }

    @Test
    void everySection_hasItsTableInThePage() throws IOException {
        assertThat(ConfigDocs.marked(Files.readString(PAGE, StandardCharsets.UTF_8)))
                .containsExactlyInAnyOrderElementsOf(ConfigDocs.sections().keySet());
    }

    @Test
    void aTableRow_isDerivedFromTheDeclaration() {
        assertThat(ConfigDocs.table("control"))
                .startsWith("| key | default | rule | meaning |\n| --- | --- | --- | --- |\n")
                .contains("| `period` | 5s | duration > 0 | Γ, the GRM's control period |")
                .contains("| `combine` | min | min, sum | 003 eq. 2b or 2a |")
                .contains("| `minWeight` | 1 | ≥ 0 | lower bound of every w(g,c) |");
    }

    /** Per section, the rows only the page has (-) and the rows only the schema has (+). */
    private static String diff(String committed, String generated) {
        StringBuilder out = new StringBuilder();
        for (String section : ConfigDocs.marked(committed)) {
            List<String> page = rows(committed, section);
            List<String> schema = rows(generated, section);
            if (page.equals(schema)) {
                continue;
            }
            out.append("## ").append(section).append('\n');
            page.stream().filter(r -> !schema.contains(r)).forEach(r -> out.append("- ").append(r).append('\n'));
            schema.stream().filter(r -> !page.contains(r)).forEach(r -> out.append("+ ").append(r).append('\n'));
            if (page.size() == schema.size() && page.containsAll(schema)) {
                out.append("(same rows in another order)\n");
            }
        }
        return out.toString();
    }

    private static List<String> rows(String markdown, String section) {
        String open = "<!-- schema:" + section + " -->\n";
        int from = markdown.indexOf(open) + open.length();
        int to = markdown.indexOf("<!-- /schema:" + section + " -->", from);
        return List.of(markdown.substring(from, to).split("\n"));
    }
}
