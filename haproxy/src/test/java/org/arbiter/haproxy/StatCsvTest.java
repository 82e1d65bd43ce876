package org.arbiter.haproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatCsvTest {

    static String resource(String name) throws IOException {
        try (InputStream in = StatCsvTest.class.getResourceAsStream("/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void readsHaproxy26Answer() throws Exception {
        StatCsv.Table t = StatCsv.parse(resource("show-stat-2.6.csv"));
        StatCsv.Row s1 = t.row("class.premium", "s1");
        assertThat(s1.slim()).isEqualTo(StatCsv.ABSENT); // maxconn 0 (unlimited): slim empty
        assertThat(t.row("class.premium", "s2").slim()).isEqualTo(2);
        assertThat(t.row("class.premium", "BACKEND").stot()).isEqualTo(3);
        assertThat(s1.stot() + t.row("class.premium", "s2").stot()).isEqualTo(3);
        assertThat(s1.responses()).isEqualTo(2);
        assertThat(t.row("class.basic", "BACKEND").isBackend()).isTrue();
    }

    @Test
    void readsServersState() throws Exception {
        Map<String, Map<String, ServersState.Server>> m = ServersState.parse(resource("show-servers-state-2.6.txt"));
        assertThat(m.get("class.basic").get("s2").userWeight()).isEqualTo(1);
        assertThat(m.get("class.basic").get("s2").admin()).isEqualTo(ServersState.Admin.READY);
    }

    @Test
    void refusesWhatIsNotATableNamingTheLine() throws Exception {
        String ok = resource("show-stat-2.6.csv");
        assertThatThrownBy(() -> StatCsv.parse("")).hasMessageContaining("empty answer");
        assertThatThrownBy(() -> StatCsv.parse("Unknown command: 'show stt'\n")).hasMessageContaining("line 1")
                .hasMessageContaining("CSV header");
        assertThatThrownBy(() -> StatCsv.parse(ok.substring(0, ok.length() - 40)))
                .isInstanceOf(StatCsv.Malformed.class).hasMessageContaining("truncated");
        String[] lines = ok.split("\n");
        assertThatThrownBy(() -> StatCsv.parse(lines[0] + "\n" + lines[2].substring(0, 30) + "\n"))
                .hasMessageContaining("line 2").hasMessageContaining("fields");
        assertThatThrownBy(() -> StatCsv.parse(ok.replaceFirst("class.premium,s1,0,0,0,1,,2", "class.premium,s1,0,0,x,1,,2")))
                .hasMessageContaining("scur").hasMessageContaining("expected: a number");
        assertThatThrownBy(() -> StatCsv.parse(ok.replace("qcur,", "qxur,"))).hasMessageContaining("no column qcur");
        assertThatThrownBy(() -> ServersState.parse("1\n# be_id be_name srv_id srv_name srv_addr srv_op_state "
                + "srv_admin_state srv_uweight\n3 b 1 s 127.0.0.1 2 zz 1\n")).hasMessageContaining("srv_admin_state");
        assertThatThrownBy(() -> ServersState.parse("Permission denied\n")).hasMessageContaining("format version 1");
    }
}
