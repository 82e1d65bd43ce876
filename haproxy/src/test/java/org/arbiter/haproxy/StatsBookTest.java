package org.arbiter.haproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.junit.jupiter.api.Test;

class StatsBookTest {

    private static final String HEADER = "# pxname,svname,qcur,scur,slim,stot,status,weight,hrsp_1xx,hrsp_2xx,hrsp_3xx,"
            + "hrsp_4xx,hrsp_5xx,hrsp_other,econ,eresp\n";
    private static final long S = 1_000_000_000L;

    /** One class backend "class.p" with server s1: levels and counters. */
    static StatCsv.Table table(long qcur, long scur, long assigned, long sent, long ok, long be5xx, int slim) throws Exception {
        return StatCsv.parse(HEADER
                + "class.p,s1,0," + scur + "," + slim + "," + sent + ",UP," + slim + ",0," + ok + ",0,0,0,0,0,0\n"
                + "class.p,BACKEND," + qcur + "," + scur + ",100," + assigned + ",UP,1,0," + ok + ",0,0," + be5xx + ",0,0,0\n");
    }

    @Test
    void littlesLawOverTheWindow() throws Exception {
        StatsBook b = new StatsBook("g1", List.of("p"), List.of("s1", "s2"), Map.of("p", 1000), 30);
        // a steady state: 4 queued, 6 in service, 6 req/s in and out; service time 1 s, queueing 4/6 s
        for (int t = 0; t <= 40; t++) {
            b.add(t * S, table(4, 6, 6L * t, 6L * t, 6L * t, 0, 6));
        }
        Allocation a = new Allocation(1, Instant.EPOCH, "g1", 0, Map.of("p", 6.0), Map.of("s1", 6), "configured");
        GatewayStats s = b.report(Instant.EPOCH, 40 * S, 5, a);
        GatewayStats.ClassStats c = s.classes().get("p");
        assertThat(s.windowSeconds()).isEqualTo(30.0);
        assertThat(c.arrivalRate()).isCloseTo(6.0, within(1e-9));
        assertThat(c.throughput()).isCloseTo(6.0, within(1e-9));
        assertThat(c.meanServiceTime()).isCloseTo(1.0, within(1e-9));
        assertThat(c.meanQueueTime()).isCloseTo(4.0 / 6, within(1e-9));
        assertThat(c.meanResponseTime()).isCloseTo(1 + 4.0 / 6, within(1e-9));
        assertThat(c.meanQueueLength()).isCloseTo(4.0, within(1e-9));
        assertThat(c.weight()).isEqualTo(6.0);
        assertThat(c.period().arrivals()).isEqualTo(30);
        assertThat(c.period().queueLimit()).isEqualTo(1000);
        assertThat(s.backlog().seconds()).isCloseTo(5.0, within(1e-9));
        GatewayStats.ServerStats s1 = s.servers().get("s1");
        assertThat(s1.cap()).isEqualTo(6);
        assertThat(s1.inFlight()).isEqualTo(6);
        assertThat(s1.meanServiceTime()).isCloseTo(1.0, within(1e-9));
        assertThat(s.servers()).doesNotContainKey("s2");
    }

    @Test
    void queueTimeoutsAreTheBackendsOwn503s() throws Exception {
        StatsBook b = new StatsBook("g1", List.of("p"), List.of("s1"), Map.of(), 30);
        b.add(0, table(10, 6, 0, 0, 0, 0, 6));
        b.add(10 * S, table(10, 6, 100, 60, 60, 40, 6));
        GatewayStats.ClassStats c = b.report(Instant.EPOCH, 10 * S, 5, null).classes().get("p");
        assertThat(c.drops()).containsEntry("queueTimeout", 40L);
        assertThat(c.arrivalRate()).isEqualTo(10.0);
    }

    @Test
    void aCounterGoingDownStartsAfresh() throws Exception {
        StatsBook b = new StatsBook("g1", List.of("p"), List.of("s1"), Map.of(), 30);
        b.add(0, table(0, 1, 1000, 1000, 1000, 0, 6));
        b.add(S, table(0, 1, 1010, 1010, 1010, 0, 6));
        assertThat(b.add(2 * S, table(0, 1, 3, 3, 3, 0, 6))).isFalse(); // HAProxy reloaded
        b.add(3 * S, table(0, 1, 9, 9, 9, 0, 6));
        assertThat(b.resets()).isEqualTo(1);
        assertThat(b.report(Instant.EPOCH, 3 * S, 5, null).classes().get("p").arrivalRate()).isEqualTo(6.0);
    }

    @Test
    void aDrainedServerReportsCapZero() throws Exception {
        StatsBook b = new StatsBook("g1", List.of("p"), List.of("s1"), Map.of(), 30);
        String csv = HEADER + "class.p,s1,0,2,5,10,DRAIN,5,0,8,0,0,0,0,0,0\nclass.p,BACKEND,0,2,100,10,UP,1,0,8,0,0,0,0,0,0\n";
        b.add(0, StatCsv.parse(csv));
        b.add(S, StatCsv.parse(csv));
        GatewayStats.ServerStats s1 = b.report(Instant.EPOCH, S, 5, null).servers().get("s1");
        assertThat(s1.cap()).isZero();
        assertThat(s1.inFlight()).isEqualTo(2);
    }
}
