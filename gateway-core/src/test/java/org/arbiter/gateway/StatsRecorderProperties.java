package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.GatewayStats.ServerStats;

/**
 * The recorder keeps window sums as buckets fill and leave, and per server running totals with one
 * history entry per bucket, the window's figures being the totals now minus those at its start (issue
 * 32, the simulator's speed). It must give exactly what the plain recorder gave — every bucket walked
 * at every snapshot, every busy server integrated at every event ({@link ReferenceStatsRecorder}, the
 * code before) — bit for bit, whatever the events: random arrivals, queue lengths, dispatches,
 * completions, in-flight changes, errors, yields, servers added by a reload, gaps longer than the
 * window, events exactly on a bucket's boundary and several at one instant. Two deliberate mutations
 * (an event on the window's first boundary counted before it; a history entry dropped that still
 * marks the window's start) each fail it.
 */
final class StatsRecorderProperties {

    @Property(tries = 150, edgeCases = EdgeCasesMode.NONE)
    void snapshots_equalThePlainRecorders_bitForBit(@ForAll long seed) {
        Random rnd = new Random(seed);
        int classes = 1 + rnd.nextInt(4);
        int servers = rnd.nextInt(4) == 0 ? 60 + rnd.nextInt(80) : 1 + rnd.nextInt(12); // past one 64-server word too
        List<String> cs = new ArrayList<>();
        for (int c = 0; c < classes; c++) {
            cs.add("c" + c);
        }
        List<String> ss = new ArrayList<>();
        for (int s = 0; s < servers; s++) {
            ss.add("s" + s);
        }
        int[] limits = new int[classes];
        Arrays.fill(limits, 100);
        long window = (1 + rnd.nextInt(30)) * 1_000_000_000L;
        long period = (1 + rnd.nextInt(5)) * 1_000_000_000L;
        long t = rnd.nextInt(1_000_000);
        long t0 = t;
        StatsRecorder fast = new StatsRecorder(cs, ss, limits, window, period, t);
        ReferenceStatsRecorder plain = new ReferenceStatsRecorder(cs, ss, limits, window, period, t);
        int[] inFlight = new int[servers];
        for (int step = 0; step < 3000; step++) {
            switch (rnd.nextInt(8)) {
                // onto the 100 ms grid from the start: often exactly a bucket's boundary (buckets are
                // whole tenths of a second here), where an event opens the bucket and the window starts
                case 0 -> t = t0 + ((t - t0) / 100_000_000L + 1) * 100_000_000L;
                case 1 -> { } // the same instant as the last event
                default -> t += rnd.nextInt(20) == 0 ? (long) (rnd.nextDouble() * 3 * window) : rnd.nextInt(200_000_000);
            }
            int c = rnd.nextInt(classes);
            int s = rnd.nextInt(inFlight.length);
            switch (rnd.nextInt(12)) {
                case 0 -> {
                    int seen = rnd.nextInt(10);
                    fast.arrival(c, seen, t);
                    plain.arrival(c, seen, t);
                }
                case 1 -> {
                    int len = rnd.nextInt(20);
                    fast.queueLength(c, len, t);
                    plain.queueLength(c, len, t);
                }
                case 2 -> {
                    boolean on = rnd.nextBoolean();
                    fast.backlogged(on, t);
                    plain.backlogged(on, t);
                }
                case 3, 4 -> {
                    inFlight[s] = Math.max(0, inFlight[s] + (rnd.nextBoolean() ? 1 : -1) * (1 + rnd.nextInt(3)));
                    fast.serverInFlight(s, inFlight[s], t);
                    plain.serverInFlight(s, inFlight[s], t);
                }
                case 5 -> {
                    long q = rnd.nextInt(2_000_000_000);
                    boolean backlog = rnd.nextBoolean();
                    fast.dispatched(c, q, backlog, t);
                    plain.dispatched(c, q, backlog, t);
                }
                case 6, 7 -> {
                    // now and then a burst in one bucket: more responses than the bucket lists one by one
                    int n = rnd.nextInt(40) == 0 ? 1 + rnd.nextInt(1500) : 1;
                    for (int i = 0; i < n; i++) {
                        long response = 1 + (long) (rnd.nextDouble() * 5e9);
                        long service = 1 + (long) (rnd.nextDouble() * response);
                        fast.completed(c, s, response, service, t);
                        plain.completed(c, s, response, service, t);
                    }
                }
                case 8 -> {
                    double y = rnd.nextDouble() * 3;
                    fast.offered(c, y, t);
                    plain.offered(c, y, t);
                    fast.realised(c, y / 2, t);
                    plain.realised(c, y / 2, t);
                }
                case 9 -> {
                    fast.serverError(s, t);
                    plain.serverError(s, t);
                    DropReason r = DropReason.values()[rnd.nextInt(DropReason.values().length)];
                    fast.dropped(c, r, t);
                    plain.dropped(c, r, t);
                }
                case 10 -> {
                    if (rnd.nextInt(20) == 0) {
                        String id = "s" + inFlight.length;
                        fast.addServer(id, t);
                        plain.addServer(id, t);
                        inFlight = Arrays.copyOf(inFlight, inFlight.length + 1);
                    }
                }
                default -> {
                    fast.accepted(c, t);
                    plain.accepted(c, t);
                }
            }
            if (rnd.nextInt(25) == 0) {
                int[] caps = new int[inFlight.length];
                boolean[] up = new boolean[inFlight.length];
                for (int i = 0; i < caps.length; i++) {
                    caps[i] = rnd.nextInt(3) == 0 ? rnd.nextInt(4) : 0;
                    up[i] = rnd.nextInt(8) != 0;
                }
                assertThat(snapshot(fast, classes, inFlight, caps, up, t)).as("step %d", step)
                        .isEqualTo(listed(snapshot(plain, classes, inFlight, caps, up, t)));
            }
        }
    }

    private static GatewayStats snapshot(StatsRecorder r, int classes, int[] inFlight, int[] caps, boolean[] up, long t) {
        // as a core gives them: only the servers with a cap or down are candidates; those with requests in
        // flight or work in the window must come from the recorder's own histories
        long[] candidates = new long[(caps.length + 63) >>> 6];
        for (int s = 0; s < caps.length; s++) {
            if (caps[s] > 0 || !up[s]) {
                candidates[s >>> 6] |= 1L << s;
            }
        }
        StatsRecorder.Live all = Fixtures.live(new double[classes], new int[classes], new int[classes],
                inFlight.clone(), caps, up);
        return r.snapshot("g1", Instant.EPOCH.plusNanos(t), t, 7, new StatsRecorder.Live(all.weights(),
                all.queueLengths(), all.classInFlight(), all.servers(), candidates));
    }

    private static GatewayStats snapshot(ReferenceStatsRecorder r, int classes, int[] inFlight, int[] caps, boolean[] up,
                                         long t) {
        return r.snapshot("g1", Instant.EPOCH.plusNanos(t), t, 7,
                new ReferenceStatsRecorder.Live(new double[classes], new int[classes], new int[classes], inFlight.clone(),
                        caps, up));
    }

    /**
     * The plain recorder's report (every server) as a gateway lists it: the servers with a cap, requests
     * in flight, work in the window or marked down.
     */
    private static GatewayStats listed(GatewayStats all) {
        Map<String, ServerStats> kept = new LinkedHashMap<>();
        all.servers().forEach((id, s) -> {
            if (s.cap() > 0 || s.inFlight() > 0 || !s.up() || s.throughput() > 0 || s.errors() > 0
                    || s.meanInFlight() > 0) {
                kept.put(id, s);
            }
        });
        return new GatewayStats(all.v(), all.at(), all.gateway(), all.windowSeconds(), all.allocationVersion(),
                all.classes(), kept, all.backlog());
    }
}
