package org.arbiter.dist.demo;

import java.util.stream.Stream;
import org.arbiter.runtime.net.Ports;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Deque;
import java.util.List;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.dist.broker.BrokerSecurity;
import org.arbiter.bus.BusAcls;
import org.arbiter.bus.KafkaBus;
import org.arbiter.bus.Subscriber;
import org.arbiter.common.config.Cidr;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigWriter;
import org.arbiter.common.config.GatewayHttpConfig;
import org.arbiter.common.config.KafkaSecurity.Role;
import org.arbiter.common.config.KafkaSecurity;
import org.arbiter.runtime.files.SecretFiles;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.MessageCodec;
import org.arbiter.gateway.l4.HaproxyConfig;
import org.arbiter.gateway.l4.HaproxyProcess;
import org.arbiter.gateway.server.Gateway;
import org.arbiter.gateway.server.GatewayOptions;
import org.arbiter.grm.control.GrmStep;
import org.arbiter.grm.service.GrmService;
import org.arbiter.loadgen.client.LoadGenerator;
import org.arbiter.loadgen.client.Scenario;
import org.arbiter.loadgen.server.SimServer;
import org.arbiter.loadgen.server.SimServerOptions;
import org.arbiter.runtime.metrics.ProcessMetrics;

/**
 * The whole product in one process (003 §V-B): an embedded Kafka broker, a GRM, two gateways,
 * two simservers with N_s = 10 and the load generator running the four phases, every duration
 * scaled. Writes DIR/summary.json (the load generator's, plus per phase the weights each gateway
 * enforced and the cluster utility), DIR/cluster.yaml, DIR/scenario.yaml, the charts and
 * DIR/console-password (the console's one-run admin password, mode 0600; its path is printed, the
 * password is not); prints a table per phase. Everything it starts is stopped by {@link #close()}, also on Ctrl-C.
 */
public final class Demo implements AutoCloseable {

    private final DemoPlan plan;
    private final int serverCount;
    private final int consolePort;
    private final Path out;
    private final PrintWriter log;
    /** The file in the output directory that holds the one-run admin password. */
    public static final String PASSWORD_FILE = "console-password";
    private final boolean secure;
    private final Deque<AutoCloseable> started = new java.util.concurrent.ConcurrentLinkedDeque<>();
    private final java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(1);
    private volatile String consoleUrl;
    private volatile String adminPassword;
    private volatile Path adminPasswordFile;
    private volatile List<Gateway> gateways = List.of();
    private volatile Thread runner;
    private volatile String bootstrap;
    private volatile java.time.Instant loadStarted;
    private final boolean viaSwitch;

    public Demo(DemoPlan plan, int serverCount, int consolePort, Path out, PrintWriter log) {
        this(plan, serverCount, consolePort, out, log, false);
    }

    /**
     * @param secure run the bus secured ({@code demo --secure}): the broker with SCRAM users and the
     *               StandardAuthorizer, the ACLs of {@code kafka acls}, the GRM, gateways and console each
     *               as its own principal (passwords in DIR/secrets, owner-only)
     */
    public Demo(DemoPlan plan, int serverCount, int consolePort, Path out, PrintWriter log, boolean secure) {
        this(plan, serverCount, consolePort, out, log, secure, false);
    }

    /**
     * @param viaSwitch run the load through a real HAProxy ({@code demo --switch}) configured by
     *                  {@link HaproxyConfig}: the gateways speak PROXY protocol and trust 127.0.0.1
     * @throws IllegalArgumentException when {@code viaSwitch} and HAProxy is not installed
     */
    public Demo(DemoPlan plan, int serverCount, int consolePort, Path out, PrintWriter log, boolean secure,
                boolean viaSwitch) {
        if (viaSwitch && HaproxyProcess.binary().isEmpty()) {
            throw new IllegalArgumentException("--switch: haproxy is not installed (expected: the haproxy executable on"
                    + " the PATH or in /usr/sbin; Debian: apt-get install haproxy)");
        }
        this.viaSwitch = viaSwitch;
        if (serverCount < 1 || serverCount > 10) {
            throw new IllegalArgumentException("--servers: " + serverCount + " (expected: 1..10)");
        }
        this.plan = plan;
        this.serverCount = serverCount;
        this.consolePort = consolePort;
        this.out = out;
        this.log = log;
        this.secure = secure;
    }

    /** Runs the demo; returns the enriched summary. */
    public ObjectNode run() throws Exception {
        runner = Thread.currentThread();
        Files.createDirectories(out);
        log.printf("demo: %s s, time scale %s (1 s of the paper = %s ms); output in %s%n",
                plan.durationSeconds(), plan.timeScale(), plan.timeScale() * 1000, out.toAbsolutePath());
        Path kafkaDir = Files.createTempDirectory("arbiter-demo-kafka");
        KafkaSecurity security = secure ? DemoSecurity.create(out.resolve("secrets"), DemoPlan.GATEWAYS) : KafkaSecurity.NONE;
        EmbeddedKafka kafka = EmbeddedKafka.start(kafkaDir, 0, 0,
                secure ? BrokerSecurity.of(security, System::getenv) : null);
        bootstrap = kafka.bootstrap();
        started.push(() -> {
            kafka.close();
            deleteRecursively(kafkaDir);
        });
        log.printf("demo: kafka ready on %s%s%n", kafka.bootstrap(), secure ? " (secured: SASL_PLAINTEXT "
                + security.mechanism() + ", StandardAuthorizer; users " + Stream.concat(
                        security.principals().values().stream(), security.gatewayPrincipals().values().stream())
                .map(KafkaSecurity.Principal::username).sorted().toList() + ", passwords in "
                + out.resolve("secrets").toAbsolutePath() + ")" : "");

        SimServerOptions sim = SimServerOptions.defaults().withDemand(10, plan.scaled(1.0), 0)
                .withDelays(plan.scaled(60), plan.scaled(60));
        List<SimServer> sims = new java.util.ArrayList<>();
        int[] serverPorts = new int[serverCount];
        for (int i = 0; i < serverCount; i++) {
            SimServer s = SimServer.start(sim.withPorts(0, 0));
            started.push(s);
            sims.add(s);
            serverPorts[i] = s.port();
        }
        int[] gatewayPorts = {Ports.free(), Ports.free(), Ports.free(), Ports.free()};
        // A one-run password for the console's admin user, written to a file only its owner can read
        // (never printed: terminal scroll-back and CI logs are read by others).
        java.security.SecureRandom rnd = new java.security.SecureRandom();
        String password = java.util.HexFormat.of().formatHex(rnd.generateSeed(6));
        String hash = org.arbiter.console.auth.Pbkdf2.hash(password.toCharArray(), 10_000, rnd);
        ClusterConfig cluster = plan.cluster(kafka.bootstrap(), serverPorts,
                sims.stream().mapToInt(SimServer::adminPort).toArray(), gatewayPorts, consolePort, hash);
        if (viaSwitch) {
            // behind the switch: every gateway reads HAProxy's PROXY v2 header and waits for its health
            // check to see a drain; only the switch (127.0.0.1) may send one
            cluster = cluster.toBuilder()
                    .gateways(cluster.gateways().stream().map(g -> g.toBuilder().proxyProtocol(true)
                            .drainDelaySeconds(HaproxyConfig.MIN_DRAIN_DELAY_SECONDS).build()).toList())
                    .gatewayHttp(new GatewayHttpConfig(List.of(Cidr.parse("127.0.0.1/32")),
                            cluster.gatewayHttp().accessLog()))
                    .build();
        }
        if (secure) {
            cluster = cluster.withKafka(cluster.kafka().withSecurity(security));
            BusAcls.Applied acls = BusAcls.apply(kafka.superUserProperties(), cluster.kafka());
            log.printf("demo: %d ACL bindings applied (only demo-grm writes allocation, power, decisions; "
                    + "demo-gateway-<id> writes stats.<id>; demo-console writes overrides); see 'arbiter kafka acls --config %s'%n",
                    acls.bindings(), out.resolve("cluster.yaml"));
        }
        Files.writeString(out.resolve("cluster.yaml"), ConfigWriter.toYaml(cluster));
        Files.writeString(out.resolve("scenario.yaml"), plan.scenarioYaml());
        log.printf("demo: %d simserver(s) on %s (10 virtual cores, N_s = 10, demand Exp(%s ms))%n", serverCount,
                sims.stream().map(s -> "127.0.0.1:" + s.port()).toList(), plan.scaled(1.0) * 1000);

        ProcessMetrics grmMetrics = ProcessMetrics.createWithJvm("grm", "grm-demo");
        started.push(grmMetrics);
        KafkaBus grmBus = KafkaBus.connect(cluster.kafka(), Role.GRM, "grm-demo", grmMetrics.registry());
        started.push(grmBus);
        GrmService grm = GrmService.start("grm-demo", cluster, grmBus, Clock.systemUTC(),
                new GrmStep(cluster, "grm-demo", System::nanoTime), grmMetrics);
        started.push(grm);
        org.arbiter.runtime.metrics.MetricsServer grmAdmin =
                org.arbiter.runtime.metrics.MetricsServer.start("grm-demo", "127.0.0.1", 0, grmMetrics::scrape);
        started.push(grmAdmin);
        log.printf("demo: GRM metrics on http://127.0.0.1:%d/metrics%n", grmAdmin.port());

        Gateway g1 = Gateway.start(cluster, "g1", GatewayOptions.defaults());
        started.push(g1);
        Gateway g2 = Gateway.start(cluster, "g2", GatewayOptions.defaults());
        started.push(g2);
        log.printf("demo: gateways g1 on 127.0.0.1:%d (admin %d), g2 on 127.0.0.1:%d (admin %d); GRM every %s ms%n",
                g1.port(), g1.adminPort(), g2.port(), g2.adminPort(), plan.scaled(5) * 1000);

        KafkaBus consoleBus = KafkaBus.connect(cluster.kafka(), Role.CONSOLE, "console-demo", null);
        started.push(consoleBus);
        org.arbiter.console.server.Console console;
        try {
            console = org.arbiter.console.server.Console.start(cluster, consoleBus, consolePort);
        } catch (RuntimeException e) {
            log.printf("demo: console port %d is taken (%s); using any free port%n", consolePort, e.getMessage());
            console = org.arbiter.console.server.Console.start(cluster, consoleBus, 0);
        }
        started.push(console);
        Path passwordFile = out.resolve(PASSWORD_FILE);
        SecretFiles.writeOwnerOnly(passwordFile, password + "\n");
        log.printf("demo: console on %s (log in as admin with the password in %s to pin weights)%n", console.url(),
                passwordFile.toAbsolutePath());
        consoleUrl = console.url();
        adminPassword = password;
        adminPasswordFile = passwordFile;
        gateways = List.of(g1, g2);

        WeightTracker weights = new WeightTracker();
        long[] loadStart = {0};
        KafkaBus watch = KafkaBus.connect(cluster.kafka(), Role.CONSOLE, "demo-watch", null);
        started.push(watch);
        watch.subscribe(watch.topics().allocation(), Allocation.class, Subscriber.Start.BEGINNING, (k, a) -> {
            if (a != null && loadStart[0] != 0) {
                weights.record(a.gateway(), Math.max(0, (System.nanoTime() - loadStart[0]) / 1e9), a.weights());
            } else if (a != null) {
                weights.record(a.gateway(), 0, a.weights());
            }
        });

        // The GRM's predictions checked against the gateways' later measurements, for the per-phase error.
        org.arbiter.sim.experiment.DecisionLog decisions =
                new org.arbiter.sim.experiment.DecisionLog(cluster.control().statsWindowSeconds());
        watch.subscribe(watch.topics().decisions(), org.arbiter.common.message.Decision.class, Subscriber.Start.BEGINNING,
                (k, d) -> decisions.accept(d));

        // Let the gateways take their first allocation before load starts.
        long deadline = System.nanoTime() + 20_000_000_000L;
        while ((g1.allocation().version() == 0 || g2.allocation().version() == 0) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        ObjectNode securedCheck = secure ? DemoSecurity.check(cluster, log) : null;
        Scenario scenario = Scenario.parse(plan.scenarioYaml());
        List<URI> targets = List.of(URI.create("http://127.0.0.1:" + g1.port()), URI.create("http://127.0.0.1:" + g2.port()));
        if (viaSwitch) {
            int switchPort = Ports.free();
            Path cfg = out.resolve("haproxy.cfg");
            Files.writeString(cfg, HaproxyConfig.generate(cluster, "127.0.0.1:" + switchPort, out.resolve("cluster.yaml")
                    .toString()));
            HaproxyProcess haproxy = HaproxyProcess.start(cfg, new java.net.InetSocketAddress("127.0.0.1", switchPort),
                    20_000);
            started.push(haproxy);
            targets = List.of(URI.create("http://127.0.0.1:" + switchPort));
            log.printf("demo: HAProxy (pid %d) on 127.0.0.1:%d in front of both gateways (PROXY v2, leastconn, /ready"
                    + " checks), configured by 'arbiter switch haproxy' in %s; clients connect only to it%n",
                    haproxy.pid(), switchPort, cfg.toAbsolutePath());
        }
        LoadGenerator load = new LoadGenerator(scenario, targets, log);
        loadStart[0] = System.nanoTime();
        loadStarted = java.time.Instant.now();
        ready.countDown();
        log.printf("demo: load started: phases A (5,5) B (20,20) C (5,20) D (20,5), %s s each%n", plan.phaseSeconds());
        ObjectNode s = MessageCodec.mapper().valueToTree(load.run(out)); // summary.json's document
        double loadStartEpoch = loadStarted.getEpochSecond() + loadStarted.getNano() / 1e9;
        List<org.arbiter.grm.model.PredictionErrors.Sample> checked = decisions.samples();
        org.arbiter.sim.experiment.Timeline timeline = DemoReport.timeline(decisions, loadStartEpoch, plan);
        try {
            org.arbiter.sim.experiment.Charts.timeline(timeline, "Demo: response time per class (both gateways), measured and predicted, in 003's s",
                    out.resolve("phases-timeline.png"));
        } catch (java.io.IOException | RuntimeException e) {
            log.printf("demo: phases-timeline.png not written (%s)%n", e.getMessage());
        }
        DemoReport.enrich(s, weights, plan.timeScale(), checked,
                loadStarted.getEpochSecond() + loadStarted.getNano() / 1e9, cluster.control().statsWindowSeconds());
        if (securedCheck != null) {
            s.set("secured", securedCheck);
        }
        MessageCodec.mapper().copy().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.resolve("summary.json").toFile(), s);
        log.print(DemoReport.table(s, plan.timeScale()));
        log.printf("demo: wrote %s%n", out.resolve("summary.json").toAbsolutePath());
        log.flush();
        return s;
    }

    /** Waits until everything runs and the load has started. */
    public boolean awaitReady(java.time.Duration timeout) throws InterruptedException {
        return ready.await(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** The embedded broker's bootstrap address (once ready; topics prefixed {@code demo.}). */
    public String bootstrap() {
        return bootstrap;
    }

    /** When the load generator started, on the wall clock the GRM stamps its records with (once ready). */
    public java.time.Instant loadStarted() {
        return loadStarted;
    }

    /** The console's URL (once ready). */
    public String consoleUrl() {
        return consoleUrl;
    }

    /** This run's console admin password (once ready). */
    public String adminPassword() {
        return adminPassword;
    }

    /** The file holding this run's console admin password, mode 0600 (once ready). */
    public Path adminPasswordFile() {
        return adminPasswordFile;
    }

    /** The gateways, g1 then g2 (once ready). */
    public List<Gateway> gateways() {
        return gateways;
    }

    @Override
    public void close() {
        Thread r = runner;
        if (r != null && r != Thread.currentThread()) {
            r.interrupt(); // stop a run still in progress (Ctrl-C, tests)
        }
        while (!started.isEmpty()) {
            AutoCloseable c = started.pop();
            try {
                c.close();
            } catch (Exception e) {
                log.println("demo: while stopping: " + e);
            }
        }
        log.flush();
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
