package org.arbiter.live.abuse;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.arbiter.bus.KafkaBus;
import org.arbiter.bus.Subscriber;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.grm.control.StatsBook;

/**
 * One statistics record for g4 stamped 2099-01-01, published on the stats topic beside g4's own
 * reports (issue 30: before the bound, such a record made every later report of that gateway look
 * stale, and 12 control periods later the GRM took its server caps to 0 while it kept serving).
 *
 * <p>The record is a copy of g4's latest real report with only {@code at} changed, so nothing but
 * its time tells it apart. Refused when the GRM counts it once as
 * {@code arbiter_bus_refused_total{reason="future"}} on its {@code /metrics}; g4 keeps its share
 * when every allocation the GRM publishes for it in the {@value StatsBook#GONE_AFTER_PERIODS} + 3
 * control periods after comes from the GRM and gives it the same cap on s1 as the last one before.
 */
final class FutureStatsAttack implements Attack {

    static final Instant FORGED_AT = Instant.parse("2099-01-01T00:00:00Z");
    private static final double WAIT_SECONDS = 30;
    private static final Pattern REFUSED = Pattern.compile(
            "(?m)^arbiter_bus_refused_total\\{([^}]*)\\}\\s+(\\S+)");

    @Override
    public String name() {
        return "future-stats";
    }

    @Override
    public String what() {
        return "one statistics record for g4 stamped 2099 on the stats topic (a copy of its own last report)";
    }

    @Override
    public String gateway() {
        return AbuseRig.BUS;
    }

    @Override
    public AttackOutcome run(Target target, AbuseSettings s) throws Exception {
        AbuseRig rig = target.rig();
        String gw = target.gateway();
        AtomicReference<GatewayStats> lastReport = new AtomicReference<>();
        List<Allocation> allocations = new CopyOnWriteArrayList<>();
        try (KafkaBus bus = KafkaBus.connect(rig.busKafka(), "abuse-attacker", null)) {
            String statsTopic = bus.topics().stats();
            bus.subscribe(statsTopic, GatewayStats.class, Subscriber.Start.END, (k, st) -> {
                if (st != null && gw.equals(st.gateway()) && st.at().isBefore(FORGED_AT)) {
                    lastReport.set(st);
                }
            });
            bus.subscribe(bus.topics().allocation(), Allocation.class, Subscriber.Start.BEGINNING, (k, a) -> {
                if (a != null && gw.equals(a.gateway())) {
                    allocations.add(a);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos((long) WAIT_SECONDS);
            while ((lastReport.get() == null || lastFromGrm(allocations) == null) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            Allocation before = lastFromGrm(allocations);
            GatewayStats real = lastReport.get();
            if (before == null || real == null) {
                throw new IllegalStateException("no " + (real == null ? "report from " + gw : "allocation from the GRM for " + gw)
                        + " within " + (int) WAIT_SECONDS + " s");
            }
            Integer capBefore = before.serverCaps().getOrDefault("s1", 0);
            long refusedBefore = refusedFuture(rig.grmMetrics(), statsTopic);
            GatewayStats forged = new GatewayStats(real.v(), FORGED_AT, gw, real.windowSeconds(), real.allocationVersion(),
                    real.classes(), real.servers(), real.backlog());
            int from = allocations.size();
            bus.publisher(statsTopic).publish(forged).get(10, TimeUnit.SECONDS);
            // One allocation per control period: wait for GONE_AFTER_PERIODS + 3 of them.
            int periods = StatsBook.GONE_AFTER_PERIODS + 3;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(
                    (long) Math.ceil(WAIT_SECONDS + periods * AbuseRig.CONTROL_PERIOD_SECONDS));
            while (allocations.size() - from < periods && System.nanoTime() < until) {
                Thread.sleep(50);
            }
            long refused = refusedFuture(rig.grmMetrics(), statsTopic) - refusedBefore;
            List<Allocation> after = List.copyOf(allocations.subList(from, allocations.size()));
            long kept = after.stream().filter(a -> "grm".equals(a.source()) && capBefore.equals(a.serverCaps().getOrDefault("s1", 0)))
                    .count();
            Map<String, Integer> caps = new TreeMap<>();
            after.forEach(a -> caps.merge(a.source() + " s1=" + a.serverCaps().getOrDefault("s1", 0), 1, Integer::sum));
            Verdict refusedVerdict = new Verdict(Verdict.ATTACK_REFUSED, refused == 1,
                    String.format(Locale.ROOT, "the GRM counted %d record(s) refused as future", refused));
            Verdict share = new Verdict("g4 keeps its share", after.size() >= periods && kept == after.size(),
                    String.format(Locale.ROOT, "%d of %d allocations after it from the GRM with s1 = %d (before: %d); %s",
                            kept, after.size(), capBefore, capBefore, caps));
            return new AttackOutcome(1, (int) Math.min(refused, 1), refused >= 1 ? 0 : 1, Map.of(), List.of(),
                    List.of(String.format(Locale.ROOT, "forged a copy of g4's report of %s, allocation v%d before",
                            real.at(), before.version())), List.of(refusedVerdict, share));
        }
    }

    private static Allocation lastFromGrm(List<Allocation> allocations) {
        for (int i = allocations.size() - 1; i >= 0; i--) {
            if ("grm".equals(allocations.get(i).source())) {
                return allocations.get(i);
            }
        }
        return null;
    }

    /** The GRM's count of stats records refused as {@code future}, read from its Prometheus text. */
    static long refusedFuture(URI metrics, String statsTopic) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("GET " + metrics + ": " + r.statusCode());
        }
        return refusedFuture(r.body(), statsTopic);
    }

    static long refusedFuture(String prometheusText, String statsTopic) {
        long total = 0;
        Matcher m = REFUSED.matcher(prometheusText);
        while (m.find()) {
            String labels = m.group(1);
            if (labels.contains("reason=\"future\"") && labels.contains("topic=\"" + statsTopic + "\"")) {
                total += Math.round(Double.parseDouble(m.group(2)));
            }
        }
        return total;
    }
}
