package org.arbiter.live;

import org.arbiter.runtime.net.Ports;
import org.arbiter.sim.experiment.*;
import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigWriter;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.PoolConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.loadgen.client.LoadGenerator;
import org.arbiter.loadgen.client.Scenario;
import org.arbiter.loadgen.client.StatusTally;

/*
 * Design note — a fault campaign against real processes.
 *
 * The rig: `arbiter kafka`, two `arbiter grm` (remote JMX on loopback), two `arbiter gateway` and
 * two `arbiter simserver`, each its own JVM started with the launcher given (java -cp … Main), all
 * on 127.0.0.1 on ports chosen free once, so a restarted process comes back where the others
 * expect it (the cluster.yaml names them). The client is the live load generator, in this
 * process: closed-loop clients spread over both gateways, with failover to the other gateway when
 * a connection is refused or closed before any answer byte. The faults that need pools
 * (grm-member-kill) run afterwards on a second rig, the same processes with two pools (premium on s1,
 * basic on s2) so that each GRM owns one; there "leading" is owning pool premium (the GRMs'
 * OwnedPools attribute) and the allocation stamp watched is that pool's (the gateways' /allocation
 * pools.premium), since the other pool's owner keeps publishing.
 *
 * One fault = one load run: `warmup` s of load (longer until two answers per client arrived, at
 * most 30 s more: a cold rig answers slowly), the fault's action (kill, stop, restart — the
 * action itself may take seconds: a broker restart waits for its ready line), then at least
 * `recovery` s more, and for the leader faults until a new leader is seen (at most 30 s more),
 * then the load ends (in-flight requests get the load generator's grace). Everything is counted
 * by the load generator's StatusTally for that run only, so rows do not mix. Between faults the
 * rig is healed outside any load window: every process that is down is restarted and the next
 * fault starts only when a GRM leads and the gateways hold an allocation.
 *
 * Observers, polled every 100 ms while the load runs: each GRM's arbiter:type=Grm MBean
 * attribute Leader over remote JMX (a GRM that cannot be reached counts as not leading), and
 * both gateways' admin /allocation stamp, (epoch, version) read as one number that grows with
 * both (STAMP_EPOCH_FACTOR), the highest seen; reports show its version part. "New leader" is the time from the
 * fault to a GRM other than the victim reporting Leader; "next allocation" the time from the
 * fault to the version growing past its value at the fault (an allocation the leader published just
 * before the broker went down counts, so for the broker faults read the gap instead), "allocation
 * gap" the longest time between two version increases from the fault to the end of the load. Polling bounds both figures' error at
 * ~0.1 s plus the JMX round trip.
 *
 * Cleanup: every child is destroyed (SIGCONT, then SIGKILL) in close(), called from a finally
 * and from a JVM shutdown hook, so an interrupted campaign leaves no process behind.
 *
 * Threads: run() on the caller's thread; the load generator on its own; the observer on one
 * daemon thread; each child's output pump on its own.
 */

/** Runs faults against a real broker, GRMs, gateways and simservers under load. See the design note. */
public final class FaultCampaign implements AutoCloseable {

    /** The faults, in the order a full campaign runs them. */
    public enum Fault {
        SIMSERVER_KILL("simserver-kill", "kill -9 simserver s1, then restart it"),
        SIMSERVER_STOP("simserver-stop", "SIGSTOP simserver s1, SIGCONT after the stop time"),
        GRM_LEADER_KILL("grm-leader-kill", "kill -9 the leading GRM"),
        GRM_LEADER_TERM("grm-leader-term", "SIGTERM the leading GRM"),
        BROKER_TERM("broker-term", "SIGTERM the Kafka broker, then restart it"),
        BROKER_KILL("broker-kill", "kill -9 the Kafka broker, then restart it"),
        GATEWAY_TERM("gateway-term", "SIGTERM gateway g1 with requests in flight (clients fail over to g2)"),
        GRM_MEMBER_KILL("grm-member-kill", "with pools (premium on s1, basic on s2, one per GRM): kill -9 the GRM "
                + "that owns pool premium");

        private final String id;
        private final String what;

        Fault(String id, String what) {
            this.id = id;
            this.what = what;
        }

        public String id() {
            return id;
        }

        public String what() {
            return what;
        }

        /** Whether it runs on the rig with pools (a second rig, after the others). */
        public boolean pooled() {
            return this == GRM_MEMBER_KILL;
        }

        /** {@code simserver-kill,grm-leader-kill} or {@code all}. */
        public static List<Fault> parseList(String list) {
            if (list == null || list.isBlank() || list.trim().equals("all")) {
                return List.of(values());
            }
            List<Fault> out = new ArrayList<>();
            for (String s : list.split(",")) {
                String id = s.trim();
                Fault f = Arrays.stream(values()).filter(v -> v.id.equals(id)).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("--faults: " + id + " (expected: all or some of "
                                + Arrays.stream(values()).map(Fault::id).collect(Collectors.joining(", ")) + ")"));
                if (out.contains(f)) {
                    throw new IllegalArgumentException("--faults: " + id + " twice (expected: each fault once)");
                }
                out.add(f);
            }
            return out;
        }
    }

    /**
     * @param launcher        the command that runs {@code arbiter} (e.g. java -cp JAR org.arbiter.dist.Main)
     * @param faults          which faults, in order
     * @param warmupSeconds   load before each fault
     * @param recoverySeconds load after each fault's action (at least)
     * @param stopSeconds     how long the simserver stays stopped
     * @param clients         closed-loop clients
     * @param thinkSeconds    their mean think time
     * @param seed            the load's random seed
     */
    public record Settings(List<String> launcher, List<Fault> faults, double warmupSeconds, double recoverySeconds,
                           double stopSeconds, int clients, double thinkSeconds, long seed) {

        public Settings {
            launcher = List.copyOf(requireNonNull(launcher, "launcher"));
            faults = List.copyOf(requireNonNull(faults, "faults"));
            if (launcher.isEmpty()) {
                throw new IllegalArgumentException("launcher: [] (expected: a command)");
            }
            if (faults.isEmpty()) {
                throw new IllegalArgumentException("faults: [] (expected: at least one)");
            }
            positive("warmupSeconds", warmupSeconds, 600);
            positive("recoverySeconds", recoverySeconds, 600);
            positive("stopSeconds", stopSeconds, 600);
            positive("thinkSeconds", thinkSeconds, 60);
            if (clients < 1 || clients > 1000) {
                throw new IllegalArgumentException("clients: " + clients + " (expected: 1..1000)");
            }
        }

        private static void positive(String name, double v, double max) {
            if (!(v > 0 && v <= max)) {
                throw new IllegalArgumentException(name + ": " + v + " (expected: 0 < x <= " + max + ")");
            }
        }

        /** The same settings for {@code only} these faults. */
        public Settings withFaults(List<Fault> only) {
            return new Settings(launcher, only, warmupSeconds, recoverySeconds, stopSeconds, clients, thinkSeconds, seed);
        }

        /** The campaign as documented: 5 s warm-up, 15 s recovery, 15 s stop, 12 clients, think 100 ms. */
        public static Settings full(List<String> launcher, List<Fault> faults, long seed) {
            return new Settings(launcher, faults, 5, 15, 15, 12, 0.1, seed);
        }

        /** The CI campaign: 2 s warm-up, 5 s recovery, 5 s stop, 8 clients. */
        public static Settings quick(List<String> launcher, List<Fault> faults, long seed) {
            return new Settings(launcher, faults, 2, 5, 5, 8, 0.1, seed);
        }
    }

    /** The launcher for a Java class path: {@code JAVA -cp CLASSPATH org.arbiter.dist.Main}. */
    public static List<String> javaLauncher(String classPath) {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", classPath,
                "org.arbiter.dist.Main");
    }

    private static final double READY_SECONDS = 90;
    private static final String[] GRMS = {"grm-a", "grm-b"};

    private final Settings settings;
    private final Path dir;
    private final Consumer<String> progress;
    private final long t0 = System.nanoTime();
    private final int kafkaPort = Ports.free();
    private final int controllerPort = Ports.free();
    private final int[] gatewayPorts = {Ports.free(), Ports.free()};
    private final int[] adminPorts = {Ports.free(), Ports.free()};
    private final int[] serverPorts = {Ports.free(), Ports.free()};
    private final int[] serverAdminPorts = {Ports.free(), Ports.free()};
    private final int[] jmxPorts = {Ports.free(), Ports.free()};
    private final ChildProcess kafka;
    private final ChildProcess[] grms = new ChildProcess[2];
    private final ChildProcess[] gateways = new ChildProcess[2];
    private final ChildProcess[] servers = new ChildProcess[2];
    private final List<ChildProcess> all = new ArrayList<>();
    private final Thread hook;
    private final FaultWatch watch;
    /** The rig has pools: "leading" below means owning {@link #WATCHED_POOL}. */
    private final boolean pooled;

    /** The campaign's cluster: premium (300 ms) and basic (600 ms), two servers of N_s = 4, two gateways, Γ = 1 s. */
    static ClusterConfig cluster(int[] serverPorts, int[] gatewayPorts, int[] adminPorts, int kafkaPort) {
        return cluster(serverPorts, gatewayPorts, adminPorts, kafkaPort, false);
    }

    /** The pool whose owner {@link Fault#GRM_MEMBER_KILL} kills. */
    static final String WATCHED_POOL = "premium";

    /** With {@code pooled}: two pools, premium on s1 and basic on s2, each owned by one of the two GRMs. */
    static ClusterConfig cluster(int[] serverPorts, int[] gatewayPorts, int[] adminPorts, int kafkaPort, boolean pooled) {
        ClassConfig.QueueConfig queue = new ClassConfig.QueueConfig(10_000, 60);
        ClusterConfig.Builder b = ClusterConfig.builder()
                .addClass(ClassConfig.builder("premium", 0.3).matchHeader("X-Class", "premium").queue(queue).build())
                .addClass(ClassConfig.builder("basic", 0.6).isDefault(true).queue(queue).build());
        for (int i = 0; i < 2; i++) {
            b.addServer(ServerConfig.builder("s" + (i + 1), URI.create("http://127.0.0.1:" + serverPorts[i])).concurrency(4)
                    .build());
            b.addGateway(GatewayConfig.builder("g" + (i + 1)).port(gatewayPorts[i]).adminPort(adminPorts[i]).build());
        }
        return b.dispatch(DispatchConfig.builder().backendTimeoutSeconds(60).connectTimeoutSeconds(1).build())
                .control(ControlConfig.builder().periodSeconds(1).reportPeriodSeconds(1).statsWindowSeconds(10).build())
                .kafka(KafkaConfig.builder().bootstrap("127.0.0.1:" + kafkaPort).topicPrefix("faults.").build())
                .pools(pooled ? List.of(new PoolConfig(WATCHED_POOL, List.of("s1"), List.of("premium")),
                        new PoolConfig("basic", List.of("s2"), List.of("basic"))) : List.of())
                .build();
    }

    private FaultCampaign(Settings settings, Path dir, Consumer<String> progress, boolean pooled) throws IOException {
        this.settings = settings;
        this.pooled = pooled;
        this.dir = dir;
        this.progress = progress;
        Path logs = Files.createDirectories(dir.resolve("logs"));
        Path config = dir.resolve("cluster.yaml");
        Files.writeString(config, ConfigWriter.toYaml(cluster(serverPorts, gatewayPorts, adminPorts, kafkaPort, pooled)));
        List<String> jvm = new ArrayList<>(settings.launcher());
        // Small, quick-starting JVMs: seven of them share the machine with the client.
        jvm.addAll(1, List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        List<String> broker = new ArrayList<>(settings.launcher());
        broker.addAll(1, List.of("-Xmx512m", "-XX:+UseSerialGC"));
        kafka = add(new ChildProcess("kafka", broker, List.of("kafka", "--port", Integer.toString(kafkaPort),
                "--controller-port", Integer.toString(controllerPort), "--data", dir.resolve("kafka-data").toString()),
                "kafka ready on", logs));
        for (int i = 0; i < 2; i++) {
            servers[i] = add(new ChildProcess("s" + (i + 1), jvm, List.of("simserver", "--port",
                    Integer.toString(serverPorts[i]), "--admin-port", Integer.toString(serverAdminPorts[i]), "--cores", "4",
                    "--mean-demand", "40ms", "--seed", Long.toString(settings.seed() + i)), "simserver ready on", logs));
            List<String> grmJvm = new ArrayList<>(jvm);
            grmJvm.addAll(1, List.of("-Dcom.sun.management.jmxremote.port=" + jmxPorts[i],
                    "-Dcom.sun.management.jmxremote.rmi.port=" + jmxPorts[i],
                    "-Dcom.sun.management.jmxremote.authenticate=false", "-Dcom.sun.management.jmxremote.ssl=false",
                    "-Dcom.sun.management.jmxremote.host=127.0.0.1", "-Djava.rmi.server.hostname=127.0.0.1"));
            grms[i] = add(new ChildProcess(GRMS[i], grmJvm, List.of("grm", "--config", config.toString(), "--id", GRMS[i],
                    "--admin-port", "0"),
                    "grm " + GRMS[i] + " running", logs));
            gateways[i] = add(new ChildProcess("g" + (i + 1), jvm, List.of("gateway", "--config", config.toString(), "--id",
                    "g" + (i + 1)), "gateway g" + (i + 1) + " ready on", logs));
        }
        watch = new FaultWatch(grms, GRMS, jmxPorts, adminPorts, pooled ? WATCHED_POOL : null);
        hook = new Thread(this::destroyAll, "fault-campaign-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    private ChildProcess add(ChildProcess p) {
        all.add(p);
        return p;
    }

    /**
     * Runs the campaign in {@code dir} (cluster.yaml, logs/, kafka-data/, load/) and returns what it
     * measured. Every process it started is ended before it returns or throws.
     */
    public static FaultReport run(Settings settings, Path dir, Consumer<String> progress) throws Exception {
        requireNonNull(settings, "settings");
        requireNonNull(progress, "progress");
        Files.createDirectories(dir);
        List<Fault> plain = settings.faults().stream().filter(f -> !f.pooled()).toList();
        List<Fault> pools = settings.faults().stream().filter(Fault::pooled).toList();
        FaultReport a = null;
        FaultReport b = null;
        if (!plain.isEmpty()) {
            try (FaultCampaign c = new FaultCampaign(settings.withFaults(plain), dir, progress, false)) {
                a = c.campaign();
            }
        }
        if (!pools.isEmpty()) {
            // a rig of its own: with pools there is no one leader for the other faults to kill
            try (FaultCampaign c = new FaultCampaign(settings.withFaults(pools), dir.resolve("pools"), progress, true)) {
                b = c.campaign();
            }
        }
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        List<FaultReport.Row> rows = new ArrayList<>();
        for (Fault f : settings.faults()) {
            (f.pooled() ? b : a).faults().stream().filter(r -> r.fault().equals(f.id())).forEach(rows::add);
        }
        return new FaultReport(rows, settings.warmupSeconds(), settings.recoverySeconds(), settings.stopSeconds(),
                settings.clients(), settings.thinkSeconds(), FaultWatch.round(a.wallSeconds() + b.wallSeconds()));
    }

    private FaultReport campaign() throws Exception {
        say("starting broker, 2 simservers, 2 GRMs, 2 gateways" + (pooled ? " with two pools" : "") + " in " + dir);
        // All at once: the GRMs and gateways wait up to 30 s for the broker; one that gives up is
        // restarted by heal().
        for (ChildProcess p : all) {
            p.start();
        }
        heal();
        List<FaultReport.Row> rows = new ArrayList<>();
        int n = 0;
        for (Fault f : settings.faults()) {
            n++;
            say(String.format(Locale.ROOT, "[%d/%d] %s: %s", n, settings.faults().size(), f.id(), f.what()));
            FaultReport.Row row = one(f);
            rows.add(row);
            say(String.format(Locale.ROOT, "[%d/%d] %s: sent %d, answered %d, lost %d, statuses %s, failovers %d, new leader %s,"
                    + " next allocation %s", n, settings.faults().size(), f.id(), row.sent(), row.answered(), row.lost(),
                    row.statuses(), row.failovers(), row.newLeaderSeconds(), row.nextAllocationSeconds()));
            if (n < settings.faults().size()) {
                heal();
            }
        }
        return new FaultReport(rows, settings.warmupSeconds(), settings.recoverySeconds(), settings.stopSeconds(),
                settings.clients(), settings.thinkSeconds(), elapsed());
    }

    /** Restarts whatever is down and waits until a GRM leads and both gateways hold an allocation. */
    private void heal() throws Exception {
        if (!kafka.alive()) {
            kafka.start();
            kafka.awaitReady(READY_SECONDS);
        }
        for (ChildProcess p : all) {
            if (!p.alive()) {
                say("restarting " + p.name());
                p.start();
            }
        }
        for (ChildProcess p : all) {
            for (int attempt = 1; ; attempt++) {
                try {
                    p.awaitReady(READY_SECONDS);
                    break;
                } catch (IllegalStateException e) {
                    if (p.alive() || attempt == 3 || Thread.currentThread().isInterrupted()) {
                        throw e;
                    }
                    say(p.name() + " ended before it was ready (attempt " + attempt + "), restarting");
                    p.start();
                }
            }
        }
        long deadline = System.nanoTime() + (long) (READY_SECONDS * 1e9);
        while (System.nanoTime() < deadline) {
            boolean owned = pooled ? watch.poolOwned() : watch.leaders().size() == 1;
            if (owned && watch.allocationVersion(0) > 0 && watch.allocationVersion(1) > 0) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("rig not ready within " + READY_SECONDS + " s: leaders " + watch.leaders()
                + ", allocation versions " + FaultWatch.versionOf(watch.allocationVersion(0)) + "/" + FaultWatch.versionOf(watch.allocationVersion(1)) + " (logs in "
                + dir.resolve("logs") + ")");
    }

    /** One fault under its own load run. */
    private FaultReport.Row one(Fault f) throws Exception {
        Map<String, Scenario.RequestShape> classes = new LinkedHashMap<>();
        classes.put("premium", Scenario.RequestShape.get(Map.of("X-Class", "premium"), 0));
        classes.put("basic", Scenario.RequestShape.get(Map.of("X-Class", "basic"), 0));
        Map<String, Integer> clients = new LinkedHashMap<>();
        clients.put("premium", settings.clients() / 2);
        clients.put("basic", settings.clients() - settings.clients() / 2);
        Scenario scenario = new Scenario(classes, settings.thinkSeconds(), 60, settings.seed(),
                List.of(new Scenario.Phase(f.id(), 600, clients, Map.of(), Map.of(), Map.of())), List.of());
        LoadGenerator load = new LoadGenerator(scenario, List.of(URI.create("http://127.0.0.1:" + gatewayPorts[0]),
                URI.create("http://127.0.0.1:" + gatewayPorts[1])), null);
        AtomicReference<Throwable> loadFailure = new AtomicReference<>();
        Path loadDir = Files.createDirectories(dir.resolve("load").resolve(f.id()));
        Thread loadThread = new Thread(() -> {
            try {
                load.run(loadDir);
            } catch (Throwable e) {
                loadFailure.set(e);
            }
        }, "fault-load");
        FaultWatch.Observer obs = watch.observer();
        long loadStart = System.nanoTime();
        loadThread.start();
        obs.start();
        String action;
        FaultReport.Drain drain = null;
        String victim = "";
        double faultAt;
        int inFlightAtFault;
        try {
            sleep(settings.warmupSeconds());
            // Under load means answers flowing: a cold rig may take longer than the warm-up to answer.
            long warm = System.nanoTime() + 30_000_000_000L;
            while (load.tally().answered() < 2L * settings.clients() && System.nanoTime() < warm) {
                Thread.sleep(100);
            }
            obs.markFault();
            inFlightAtFault = load.inFlight();
            faultAt = sinceStart(loadStart);
            say(String.format(Locale.ROOT, "  %s at load %.1f s: %d answered so far, %d in flight", f.id(), faultAt,
                    load.tally().answered(), inFlightAtFault));
            switch (f) {
                case SIMSERVER_KILL -> {
                    action = "kill -9 s1 (pid " + servers[0].pid() + "), restart";
                    servers[0].signal("KILL");
                    servers[0].awaitExit(10);
                    servers[0].start();
                    servers[0].awaitReady(READY_SECONDS);
                }
                case SIMSERVER_STOP -> {
                    action = "kill -STOP s1 (pid " + servers[0].pid() + ") for " + settings.stopSeconds() + " s, kill -CONT";
                    servers[0].signal("STOP");
                    try {
                        sleep(settings.stopSeconds());
                    } finally {
                        servers[0].signal("CONT");
                    }
                }
                case GRM_MEMBER_KILL -> {
                    String owner = obs.leaderAtFault;
                    if (owner.isEmpty() || owner.contains(",")) {
                        throw new IllegalStateException(f.id() + ": pool " + WATCHED_POOL + " has owners [" + owner
                                + "] at the fault (expected: one)");
                    }
                    victim = owner;
                    ChildProcess p = grms[Arrays.asList(GRMS).indexOf(owner)];
                    action = "kill -9 " + owner + " (pid " + p.pid() + "), owner of pool " + WATCHED_POOL;
                    p.signal("KILL");
                    p.awaitExit(30);
                }
                case GRM_LEADER_KILL, GRM_LEADER_TERM -> {
                    String leader = obs.leaderAtFault;
                    if (leader.isEmpty()) {
                        throw new IllegalStateException(f.id() + ": no GRM leads at the fault");
                    }
                    victim = leader;
                    ChildProcess p = grms[Arrays.asList(GRMS).indexOf(leader)];
                    boolean kill = f == Fault.GRM_LEADER_KILL;
                    action = (kill ? "kill -9 " : "kill -TERM ") + leader + " (pid " + p.pid() + ")";
                    p.signal(kill ? "KILL" : "TERM");
                    if (!p.awaitExit(30)) {
                        action += ", still running 30 s after SIGTERM";
                    }
                }
                case BROKER_TERM, BROKER_KILL -> {
                    boolean kill = f == Fault.BROKER_KILL;
                    action = (kill ? "kill -9" : "kill -TERM") + " kafka (pid " + kafka.pid() + "), restart";
                    kafka.signal(kill ? "KILL" : "TERM");
                    if (!kafka.awaitExit(30)) {
                        action += " (forced: still running 30 s after SIGTERM)";
                        kafka.signal("KILL");
                        kafka.awaitExit(10);
                    }
                    kafka.start();
                    kafka.awaitReady(READY_SECONDS);
                }
                case GATEWAY_TERM -> {
                    action = "kill -TERM g1 (pid " + gateways[0].pid() + ")";
                    gateways[0].signal("TERM");
                    if (gateways[0].awaitExit(30)) {
                        drain = lastDrain(gateways[0].log());
                    } else {
                        action += ", still running 30 s after SIGTERM";
                    }
                }
                default -> throw new IllegalStateException(f.id());
            }
            say(String.format(Locale.ROOT, "  %s: %s done at load %.1f s", f.id(), action, sinceStart(loadStart)));
            long until = System.nanoTime() + (long) (settings.recoverySeconds() * 1e9);
            boolean leaderFault = f == Fault.GRM_LEADER_KILL || f == Fault.GRM_LEADER_TERM || f == Fault.GRM_MEMBER_KILL;
            long cap = until + 30_000_000_000L;
            long nextNote = System.nanoTime() + 5_000_000_000L;
            while (System.nanoTime() < until
                    || (System.nanoTime() < cap && (leaderFault && obs.newLeaderSeconds(victim) == null
                    || obs.nextAllocationSeconds() == null))) {
                Thread.sleep(100);
                if (System.nanoTime() > nextNote) {
                    nextNote += 5_000_000_000L;
                    StatusTally t = load.tally();
                    say(String.format(Locale.ROOT, "  %s at load %.1f s: sent %d, answered %d, leader %s, allocation v%d",
                            f.id(), sinceStart(loadStart), t.sent(), t.answered(), obs.leaders, FaultWatch.versionOf(obs.version)));
                }
            }
        } finally {
            load.finishNow();
            loadThread.join(120_000);
            obs.stop();
        }
        if (loadFailure.get() != null) {
            throw new IllegalStateException(f.id() + ": load failed: " + loadFailure.get(), loadFailure.get());
        }
        StatusTally t = load.tally();
        return new FaultReport.Row(f.id(), action, FaultWatch.round(sinceStart(loadStart)), inFlightAtFault, t.sent(), t.answered(),
                t.sent() - t.answered(), t.statuses(), t.connectionErrors(), t.timedOut(), t.lost(), t.failovers(), t.failoversAfterConnect(),
                obs.leaderAtFault, String.join(",", obs.leaders), victim.isEmpty() ? null : obs.newLeaderSeconds(victim),
                FaultWatch.round(obs.leaderlessSeconds), FaultWatch.round(obs.dualSeconds), obs.nextAllocationSeconds(),
                FaultWatch.round(obs.longestGapSeconds), FaultWatch.versionOf(obs.versionAtFault),
                FaultWatch.versionOf(obs.version), drain);
    }

    /** The last drain line in a gateway's log (read once the process has ended: the log is complete); null if none. */
    static FaultReport.Drain lastDrain(Path log) throws IOException {
        if (!Files.exists(log)) {
            return null;
        }
        FaultReport.Drain last = null;
        for (String line : Files.readAllLines(log, java.nio.charset.StandardCharsets.UTF_8)) {
            FaultReport.Drain d = FaultReport.Drain.parse(line);
            if (d != null) {
                last = d;
            }
        }
        return last;
    }

    private void say(String line) {
        progress.accept(String.format(Locale.ROOT, "faults %6.1fs %s", elapsed(), line));
    }

    private double elapsed() {
        return FaultWatch.round((System.nanoTime() - t0) / 1e9);
    }

    private static double sinceStart(long start) {
        return (System.nanoTime() - start) / 1e9;
    }

    private static void sleep(double seconds) throws InterruptedException {
        Thread.sleep((long) (seconds * 1000));
    }

    private void destroyAll() {
        for (ChildProcess p : all) {
            p.destroy();
        }
    }

    @Override
    public void close() {
        watch.close();
        destroyAll();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException ignored) {
            // already shutting down: the hook runs anyway
        }
    }
}
