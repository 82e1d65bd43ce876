package org.arbiter.haproxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Coverage-guided fuzzing of what the agent reads from HAProxy's Runtime API: {@link StatCsv#parse} and
 * {@link ServersState#parse} (the input split in two at its first NUL byte).
 *
 * <p>Properties: any answer either parses or is refused with {@link StatCsv.Malformed} whose message is not
 * blank; nothing else escapes. What parses can be planned against ({@link Reconciler#plan}) and booked
 * ({@link StatsBook}) without an exception, and every command planned names a backend and server that HAProxy
 * listed.
 */
class RuntimeAnswersFuzzTest {

    @FuzzTest(maxDuration = "5m")
    void answers(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        int nul = text.indexOf('\0');
        String stat = nul < 0 ? text : text.substring(0, nul);
        String state = nul < 0 ? "1\n# be_id be_name srv_id srv_name srv_admin_state srv_uweight\n" : text.substring(nul + 1);
        StatCsv.Table table;
        Map<String, Map<String, ServersState.Server>> servers;
        try {
            table = StatCsv.parse(stat);
            servers = ServersState.parse(state);
        } catch (StatCsv.Malformed e) {
            assertThat(e.getMessage()).isNotBlank();
            return;
        }
        List<String> classes = List.of("premium", "basic");
        Reconciler.Plan plan = Reconciler.plan(classes, Map.of("premium", Map.of("s1", 3), "basic", Map.of("s1", 2)),
                Map.of("s1", 5), table, servers);
        for (Reconciler.Command c : plan.commands()) {
            assertThat(table.row(c.backend(), c.server())).isNotNull();
            assertThat(c.text()).doesNotContain(";").doesNotContain("\n").matches("set [a-z ]+ class\\.[a-z]+/[A-Za-z0-9._:-]+( [a-z]+)? ?[a-z0-9]*");
        }
        StatsBook book = new StatsBook("g1", classes, List.of("s1", "s2"), Map.of(), 30);
        book.add(0, table);
        book.add(1_000_000_000L, table);
        assertThat(book.report(java.time.Instant.EPOCH, 1_000_000_000L, 5, null)).isNotNull();
    }
}
