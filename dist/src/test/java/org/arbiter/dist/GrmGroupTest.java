package org.arbiter.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.bus.KafkaBus;
import org.arbiter.common.bus.Bus;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigWriter;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.PoolConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.PoolAllocations;
import org.arbiter.gateway.allocation.AllocationFollower;
import org.arbiter.gateway.allocation.ConfiguredAllocation;
import org.arbiter.gateway.server.Gateway;
import org.arbiter.gateway.server.GatewayOptions;
import org.arbiter.live.ChildProcess;
import org.arbiter.live.FaultCampaign;
import org.arbiter.loadgen.server.SimServer;
import org.arbiter.loadgen.server.SimServerOptions;
import org.arbiter.runtime.net.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group of GRMs (issue 32 item 6): the embedded broker, three {@code arbiter grm} processes, 12 pools (one
 * class and one in-process simserver each), two in-process gateways under closed-loop load over every class,
 * and two observers that follow the allocation topic as a gateway does ({@link AllocationFollower} over
 * {@link PoolAllocations}). Asserted: each GRM owns 4 pools and each pool exactly one GRM (their
 * {@code /metrics}); after kill -9 of one GRM each of its pools is owned by a survivor and both observers
 * accept its allocations within the session timeout (6 s) plus two periods; every request sent meanwhile
 * is answered 200; and per gateway and pool the epochs accepted only grow, one owner's while steady and then
 * the new owner's: no gateway follows two owners of a pool.
 */
class GrmGroupTest {

    static final int POOLS = 12;
    static final double PERIOD = 1;
    static final double SESSION = 6;

    @TempDir
    Path dir;

    EmbeddedKafka kafka;
    final List<ChildProcess> grms = new ArrayList<>();
    final List<AutoCloseable> closers = new ArrayList<>();
    final List<String> metricsUrls = new ArrayList<>();

    /** The GRMs' group meters, for a failure's message. */
    String meters() {
        StringBuilder out = new StringBuilder();
        for (String u : metricsUrls) {
            try (var in = URI.create(u).toURL().openStream()) {
                new String(in.readAllBytes()).lines().filter(l -> l.startsWith("arbiter_grm_periods")
                        || l.startsWith("arbiter_grm_pools_owned") || l.startsWith("arbiter_grm_stats_ignored")
                        || l.startsWith("arbiter_grm_gateways_live")).forEach(l -> out.append(l).append("; "));
            } catch (Exception e) {
                out.append(u).append(": ").append(e).append("; ");
            }
        }
        return out.toString();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closers) {
            c.close();
        }
        for (ChildProcess p : grms) {
            System.out.println("---- " + p.name() + "\n" + p.tail(25));
            p.destroy();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    static ClusterConfig cluster(int kafkaPort, List<Integer> serverPorts) {
        ClusterConfig.Builder b = ClusterConfig.builder();
        List<PoolConfig> pools = new ArrayList<>();
        for (int p = 1; p <= POOLS; p++) {
            String c = String.format("c%02d", p);
            String s = String.format("s%02d", p);
            b.addClass(ClassConfig.builder(c, 1).matchHeader("X-Class", c).isDefault(p == 1).build());
            b.addServer(ServerConfig.builder(s, URI.create("http://127.0.0.1:" + serverPorts.get(p - 1))).concurrency(4)
                    .build());
            pools.add(new PoolConfig(String.format("p%02d", p), List.of(s), List.of(c)));
        }
        b.addGateway(GatewayConfig.builder("g1").port(0).adminPort(0).build());
        b.addGateway(GatewayConfig.builder("g2").port(0).adminPort(0).build());
        return b.pools(pools)
                .control(ControlConfig.builder().periodSeconds(PERIOD).reportPeriodSeconds(PERIOD).statsWindowSeconds(5)
                        .build())
                .kafka(KafkaConfig.builder().bootstrap("127.0.0.1:" + kafkaPort).topicPrefix("group.")
                        .properties(Map.of("session.timeout.ms", Long.toString((long) (SESSION * 1000)),
                                "heartbeat.interval.ms", "1000"))
                        .build())
                .build();
    }

    /** One allocation a follower accepted. */
    record Accepted(String gateway, String pool, long epoch, long atMillis) {
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void twelvePoolsOverThreeGrms_killOne_itsPoolsAreOwnedAgain_andNoGatewayFollowsTwoOwners() throws Exception {
        long t0 = System.nanoTime();
        kafka = EmbeddedKafka.start(dir.resolve("kafka"), Ports.free());
        List<Integer> serverPorts = new ArrayList<>();
        for (int i = 0; i < POOLS; i++) {
            SimServer server = SimServer.start(SimServerOptions.defaults().withDemand(4, 0.005, 0).withSeed(i));
            closers.add(server);
            serverPorts.add(server.port());
        }
        ClusterConfig config = cluster(kafka.port(), serverPorts);
        Path file = dir.resolve("cluster.yaml");
        Files.writeString(file, ConfigWriter.toYaml(config));
        List<String> jvm = new ArrayList<>(FaultCampaign.javaLauncher(System.getProperty("java.class.path")));
        jvm.addAll(1, List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        String[] ids = {"grm-a", "grm-b", "grm-c"};
        Files.createDirectories(dir.resolve("logs"));
        for (String id : ids) {
            ChildProcess p = new ChildProcess(id, jvm, List.of("grm", "--config", file.toString(), "--id", id,
                    "--admin-port", "0"), "grm " + id + " running", dir.resolve("logs"));
            grms.add(p);
            p.start();
        }
        for (ChildProcess p : grms) {
            String ready = p.awaitReady(90);
            metricsUrls.add(ready.substring(ready.indexOf("metrics ") + 8, ready.lastIndexOf(')')));
        }

        KafkaBus bus = KafkaBus.connect(config.kafka(), "group-test", null);
        closers.add(bus);
        List<Accepted> accepted = new CopyOnWriteArrayList<>();
        for (String g : List.of("g1", "g2")) {
            Allocation initial = ConfiguredAllocation.of(config, g, false, Instant.EPOCH);
            AllocationFollower f = new AllocationFollower(g, PoolAllocations.of(config, initial),
                    a -> accepted.add(new Accepted(a.gateway(), a.pool(), a.epoch(), (System.nanoTime() - t0) / 1_000_000)),
                    Clock.systemUTC(), config.control().maxClockSkewMillis(), (r, d) -> { });
            closers.add(bus.subscribe(bus.topics().allocation(), Allocation.class, Bus.Start.BEGINNING, f::accept));
        }
        // two real gateways (they publish their statistics and follow each pool's allocations themselves)
        List<Gateway> gateways = new ArrayList<>();
        for (String g : List.of("g1", "g2")) {
            Gateway gw = Gateway.start(config, g, GatewayOptions.defaults());
            closers.add(0, gw);
            gateways.add(gw);
        }
        Load load = new Load(gateways.stream().map(Gateway::port).toList());
        closers.add(0, load);
        load.start();

        // 1. Steady: each pool owned by exactly one GRM (their /metrics), each GRM 4 pools, every pool allocating.
        waitUntil(60, () -> {
            Map<String, Set<String>> o = ownersByMetrics(ids);
            return o.size() == POOLS && o.values().stream().allMatch(x -> x.size() == 1)
                    && epochs(accepted, 0).size() == 2 * POOLS;
        }, () -> "owners " + ownersByMetrics(ids) + ", " + accepted.size() + " allocations accepted; " + meters());
        Thread.sleep(3000);
        long steadyFrom = (System.nanoTime() - t0) / 1_000_000 - 2500;
        Map<String, Set<String>> steady = ownersByMetrics(ids);
        assertThat(steady).hasSize(POOLS);
        assertThat(steady.values()).as("one owner per pool: " + steady).allMatch(x -> x.size() == 1);
        Map<String, List<String>> byGrm = new TreeMap<>();
        steady.forEach((pool, x) -> byGrm.computeIfAbsent(x.iterator().next(), k -> new ArrayList<>()).add(pool));
        assertThat(byGrm).as("pools per GRM: " + byGrm).hasSize(3);
        assertThat(byGrm.values()).allMatch(l -> l.size() == 4);
        Map<String, List<Long>> before = epochs(accepted, steadyFrom);
        assertThat(before.values()).as("one epoch per gateway and pool while steady: " + before)
                .allMatch(l -> l.size() == 1);

        // 2. kill -9 one GRM; its pools are owned and allocating again within the session timeout + 2 periods.
        String victim = byGrm.keySet().iterator().next();
        List<String> victimPools = byGrm.get(victim);
        ChildProcess v = grms.get(List.of(ids).indexOf(victim));
        long killedAt = (System.nanoTime() - t0) / 1_000_000;
        v.signal("KILL");
        assertThat(v.awaitExit(10)).isTrue();
        double bound = SESSION + 2 * PERIOD;
        waitUntil(bound + 20, () -> victimPools.stream().allMatch(p -> newEpochAt(accepted, p, before, killedAt) != null),
                () -> "epochs since the kill " + epochs(accepted, killedAt));
        Map<String, Double> resumed = new TreeMap<>();
        for (String p : victimPools) {
            resumed.put(p, (newEpochAt(accepted, p, before, killedAt) - killedAt) / 1000.0);
        }
        Thread.sleep(3000);
        Map<String, Set<String>> after = ownersByMetrics(ids);
        System.out.println("killed " + victim + " owning " + victimPools + "; allocating again after (s): " + resumed
                + "; owners now " + after);
        assertThat(resumed.values()).as("each pool of " + victim + " allocating again within " + bound + " s: " + resumed)
                .allMatch(x -> x <= bound);
        assertThat(after).hasSize(POOLS);
        assertThat(after.values()).as("one owner per pool after the kill: " + after)
                .allMatch(x -> x.size() == 1 && !x.contains(victim));

        // a gateway's /allocation names each pool's stamp: the victim's pools on their new owners' epochs
        var admin = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + gateways.get(0).adminPort() + "/allocation")).build(), HttpResponse.BodyHandlers.ofString());
        var pools = new ObjectMapper().readTree(admin.body()).get("pools");
        assertThat(pools).as(admin.body()).isNotNull();
        assertThat(pools.size()).isEqualTo(POOLS);
        for (String p : victimPools) {
            assertThat(pools.get(p).get("epoch").asLong()).as(p + " in /allocation")
                    .isNotEqualTo(before.get("g1/" + p).get(0));
        }

        // every request sent through the kill was answered, by the servers
        load.close();
        System.out.println("load: " + load.sent.get() + " sent, answers by status " + load.statuses + ", failures "
                + load.failures.size());
        assertThat(load.failures).as("requests without an answer").isEmpty();
        assertThat(load.answered()).isEqualTo(load.sent.get()).isGreaterThan(500);
        assertThat(load.statuses.keySet()).as("answers by status " + load.statuses).containsOnly(200);

        // 3. No gateway followed two owners of a pool: per gateway and pool, the epochs accepted only grow, and
        // since the steady state a pool shows its one owner's epoch, then (the victim's pools) the new owner's.
        for (String g : List.of("g1", "g2")) {
            for (int p = 1; p <= POOLS; p++) {
                String pool = String.format("p%02d", p);
                List<Long> all = new ArrayList<>();
                accepted.stream().filter(a -> a.gateway().equals(g) && a.pool().equals(pool)).forEach(a -> all.add(a.epoch()));
                assertThat(all).as(g + "/" + pool + ": epochs accepted in order").isSorted();
                List<Long> since = epochs(accepted, steadyFrom).get(g + "/" + pool);
                assertThat(since).as(g + "/" + pool + " since steady: " + since)
                        .hasSize(victimPools.contains(pool) ? 2 : 1);
            }
        }
    }

    /** Closed-loop clients on both gateways, every class in turn: every request must get an answer. */
    static final class Load implements AutoCloseable {
        final List<Integer> ports;
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        final AtomicLong sent = new AtomicLong();
        final Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
        final List<String> failures = new CopyOnWriteArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        volatile boolean running = true;

        Load(List<Integer> ports) {
            this.ports = ports;
        }

        void start() {
            for (int t = 0; t < 8; t++) {
                int id = t;
                Thread th = new Thread(() -> {
                    for (long i = id; running; i += 8) {
                        int port = ports.get((int) (i % ports.size()));
                        String cls = String.format("c%02d", 1 + (int) (i % POOLS));
                        HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/x"))
                                .header("X-Class", cls).timeout(Duration.ofSeconds(30)).GET().build();
                        sent.incrementAndGet();
                        try {
                            int status = http.send(r, HttpResponse.BodyHandlers.discarding()).statusCode();
                            statuses.computeIfAbsent(status, k -> new AtomicLong()).incrementAndGet();
                        } catch (Exception e) {
                            failures.add(cls + " via " + port + ": " + e);
                        }
                        try {
                            Thread.sleep(5);
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }, "load-" + t);
                th.setDaemon(true);
                threads.add(th);
                th.start();
            }
        }

        long answered() {
            return statuses.values().stream().mapToLong(AtomicLong::get).sum();
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            for (Thread t : threads) {
                t.join(35_000);
            }
        }
    }

    /** Per pool, the GRMs whose /metrics say they own it. */
    private Map<String, Set<String>> ownersByMetrics(String[] ids) {
        Map<String, Set<String>> out = new TreeMap<>();
        for (int i = 0; i < metricsUrls.size(); i++) {
            if (!grms.get(i).alive()) {
                continue;
            }
            try (var in = URI.create(metricsUrls.get(i)).toURL().openStream()) {
                for (String l : new String(in.readAllBytes()).lines().toList()) {
                    if (l.startsWith("arbiter_grm_pool_owned{") && l.endsWith(" 1.0")) {
                        String pool = l.substring(l.indexOf("pool=\"") + 6);
                        out.computeIfAbsent(pool.substring(0, pool.indexOf('"')), k -> new TreeSet<>()).add(ids[i]);
                    }
                }
            } catch (Exception e) {
                // a GRM that is going away
            }
        }
        return out;
    }

    /** Per gateway/pool, the distinct epochs accepted at or after {@code fromMillis}, in order. */
    private static Map<String, List<Long>> epochs(List<Accepted> accepted, long fromMillis) {
        Map<String, List<Long>> out = new TreeMap<>();
        for (Accepted a : accepted) {
            if (a.atMillis() >= fromMillis) {
                List<Long> l = out.computeIfAbsent(a.gateway() + "/" + a.pool(), k -> new ArrayList<>());
                if (l.isEmpty() || l.get(l.size() - 1) != a.epoch()) {
                    l.add(a.epoch());
                }
            }
        }
        return out;
    }

    /** When both gateways first accepted for {@code pool} an epoch other than before the kill (ms), or null. */
    private static Long newEpochAt(List<Accepted> accepted, String pool, Map<String, List<Long>> before, long afterMillis) {
        long latest = 0;
        for (String g : List.of("g1", "g2")) {
            long old = before.get(g + "/" + pool).get(0);
            Long at = null;
            for (Accepted a : accepted) {
                if (a.gateway().equals(g) && a.pool().equals(pool) && a.epoch() != old && a.atMillis() > afterMillis) {
                    at = a.atMillis();
                    break;
                }
            }
            if (at == null) {
                return null;
            }
            latest = Math.max(latest, at);
        }
        return latest;
    }

    private static void waitUntil(double seconds, BooleanSupplier condition, Supplier<String> state)
            throws InterruptedException {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < end) {
            if (condition.getAsBoolean()) {
                return;
            }
            Thread.sleep(100);
        }
        assertThat(condition.getAsBoolean()).as("within " + seconds + " s; " + state.get()).isTrue();
    }
}
