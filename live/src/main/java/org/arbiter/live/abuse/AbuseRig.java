package org.arbiter.live.abuse;

import org.arbiter.runtime.net.Ports;
import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigWriter;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.GatewayHttpConfig;
import org.arbiter.runtime.files.SecretFiles;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.config.TlsConfig;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.live.ChildProcess;

/*
 * Design note — the abuse rig.
 *
 * Three real processes on 127.0.0.1, each its own JVM started with the launcher given: one
 * `arbiter simserver` (fast default class; requests with `X-Class: slow` have a long mean demand) and two standalone
 * `arbiter gateway`s (no Kafka, no GRM: a standalone gateway shares its slots by the configured
 * weights, and none of the attacks concerns the control loop): g1 with a plain request port (HTTP/1.1
 * and h2c) and g2 with TLS on its request port (h2 by ALPN), both from one cluster.yaml with short
 * timeouts (dispatch.idleTimeout from the settings, a 1 MiB body limit, a 2 s drain) so that every
 * attack resolves in seconds. The TLS certificate is self-signed, made by openssl. A third gateway,
 * g3, has a file of its own (cluster-ws.yaml) whose only server is the UpgradeBackend in the
 * campaign's JVM (101 to Upgrade: websocket, then held; 200 to anything else), for the tunnels.
 * A fourth gateway, g4, is the one that follows a GRM: a single-node KRaft broker in the campaign's
 * JVM, an `arbiter grm` process and g4 share cluster-bus.yaml (s1 as the one server, Γ = 0.5 s), for
 * the attacks on the control loop (a statistics record stamped in the future).
 *
 * Cleanup: every child is destroyed in close(), called from a finally and from a JVM shutdown hook.
 * Thread-safety: start, restart and close from the campaign's thread; the getters from any thread.
 */

/** Starts and holds the simserver, the four gateways, the broker and the GRM an abuse campaign attacks. See the design note. */
public final class AbuseRig implements AutoCloseable {

    /** The gateway with a plain request port. */
    public static final String PLAIN = "g1";
    /** The gateway with TLS on its request port. */
    public static final String TLS = "g2";
    /** The gateway in front of the upgrade backend (its own configuration file), for WebSocket tunnels. */
    public static final String WS = "g3";
    /** The gateway that follows the GRM over the rig's broker (its own configuration file). */
    public static final String BUS = "g4";
    /** The control period of g4's cluster, seconds. */
    static final double CONTROL_PERIOD_SECONDS = 0.5;
    /** The request header naming the class, read by the gateway's class rule and by the simserver's demands. */
    static final String SLOW_HEADER = "X-Class";
    private static final String HOST = "127.0.0.1";
    private static final double READY_SECONDS = 60;

    private final AbuseSettings settings;
    private final Path dir;
    private final Path config;
    private final String configText;
    private final SelfSignedCert cert;
    private final Path tokenFile;
    private final String adminToken;
    private final int[] ports = Ports.free(4);
    private final int[] adminPorts = Ports.free(4);
    private final int serverPort = Ports.free();
    private final int grmAdminPort = Ports.free();
    private final ChildProcess server;
    private final ChildProcess[] gateways = new ChildProcess[4];
    private final ChildProcess grm;
    private final EmbeddedKafka kafka;
    private final KafkaConfig busKafka;
    private final UpgradeBackend upgradeBackend;
    private final List<ChildProcess> all = new ArrayList<>();
    private final Thread hook;

    private AbuseRig(AbuseSettings settings, Path dir) throws Exception {
        this.settings = settings;
        this.dir = dir;
        Path logs = Files.createDirectories(dir.resolve("logs"));
        cert = SelfSignedCert.make(dir);
        byte[] seed = new byte[24];
        new SecureRandom().nextBytes(seed);
        adminToken = HexFormat.of().formatHex(seed);
        tokenFile = dir.resolve("admin-token").toAbsolutePath();
        SecretFiles.writeOwnerOnly(tokenFile, adminToken + "\n");
        config = dir.resolve("cluster.yaml");
        configText = ConfigWriter.toYaml(cluster());
        Files.writeString(config, configText);
        List<String> jvm = new ArrayList<>(settings.launcher());
        jvm.addAll(1, List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        server = add(new ChildProcess("s1", jvm, List.of("simserver", "--port", Integer.toString(serverPort),
                "--admin-port", Integer.toString(Ports.free()), "--cores", "16", "--mean-demand", "5ms", "--demand",
                "slow=" + fmt(settings.slowDemandSeconds()) + "s", "--class-header", SLOW_HEADER),
                "simserver ready on", logs));
        String[] ids = {PLAIN, TLS};
        for (int i = 0; i < 2; i++) {
            gateways[i] = add(new ChildProcess(ids[i], jvm, List.of("gateway", "--config", config.toString(), "--id",
                    ids[i]), "gateway " + ids[i] + " ready on", logs));
        }
        upgradeBackend = new UpgradeBackend();
        Path wsConfig = dir.resolve("cluster-ws.yaml");
        Files.writeString(wsConfig, ConfigWriter.toYaml(wsCluster()));
        gateways[2] = add(new ChildProcess(WS, jvm, List.of("gateway", "--config", wsConfig.toString(), "--id", WS),
                "gateway " + WS + " ready on", logs));
        kafka = EmbeddedKafka.start(dir.resolve("kafka-data"), Ports.free(), Ports.free(), null);
        busKafka = KafkaConfig.builder().bootstrap(kafka.bootstrap()).topicPrefix("abuse.").build();
        Path busConfig = dir.resolve("cluster-bus.yaml");
        try {
            Files.writeString(busConfig, ConfigWriter.toYaml(busCluster()));
        } catch (IOException | RuntimeException e) {
            kafka.close(); // its threads would keep the campaign's JVM alive
            upgradeBackend.close();
            throw e;
        }
        grm = add(new ChildProcess("grm", jvm, List.of("grm", "--config", busConfig.toString(), "--id", "grm-abuse",
                "--admin-port", Integer.toString(grmAdminPort)), "grm grm-abuse running", logs));
        gateways[3] = add(new ChildProcess(BUS, jvm, List.of("gateway", "--config", busConfig.toString(), "--id", BUS),
                "gateway " + BUS + " ready on", logs));
        hook = new Thread(this::destroyAll, "abuse-rig-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Starts the rig in {@code dir} (cluster.yaml, the certificate, logs/) and waits until every process is ready. */
    public static AbuseRig start(AbuseSettings settings, Path dir) throws Exception {
        requireNonNull(settings, "settings");
        Files.createDirectories(dir);
        AbuseRig rig = new AbuseRig(settings, dir);
        try {
            for (ChildProcess p : rig.all) {
                p.start();
            }
            for (ChildProcess p : rig.all) {
                p.awaitReady(READY_SECONDS);
            }
            return rig;
        } catch (Exception e) {
            rig.close();
            throw e;
        }
    }

    private ClusterConfig cluster() {
        ClusterConfig.Builder b = ClusterConfig.builder()
                .addClass(ClassConfig.builder("slow", 30).matchHeader(SLOW_HEADER, "slow").build())
                .addClass(ClassConfig.builder("basic", 5).isDefault(true).build())
                .addServer(ServerConfig.builder("s1", URI.create("http://" + HOST + ":" + serverPort)).concurrency(64)
                        .build());
        String[] ids = {PLAIN, TLS};
        for (int i = 0; i < 2; i++) {
            GatewayConfig.Builder g = GatewayConfig.builder(ids[i]).host(HOST).port(ports[i]).adminPort(adminPorts[i])
                    .drainTimeoutSeconds(2);
            if (ids[i].equals(TLS)) {
                g.tls(new TlsConfig(cert.cert(), cert.key(), List.of(), Map.of()));
            }
            b.addGateway(g.build());
        }
        return b.dispatch(dispatch()).gatewayHttp(gatewayHttp()).build();
    }

    /** g3's cluster: one class, the upgrade backend as its only server (32 slots). */
    private ClusterConfig wsCluster() {
        return ClusterConfig.builder()
                .addClass(ClassConfig.builder("basic", 5).isDefault(true).build())
                .addServer(ServerConfig.builder("ws", URI.create("http://" + HOST + ":" + upgradeBackend.port()))
                        .concurrency(WS_SLOTS).build())
                .addGateway(GatewayConfig.builder(WS).host(HOST).port(ports[2]).adminPort(adminPorts[2])
                        .drainTimeoutSeconds(2).build())
                .dispatch(dispatch()).gatewayHttp(gatewayHttp())
                .build();
    }

    /** g4's cluster: the same classes, s1 as its one server, the rig's broker and a GRM with Γ = 0.5 s. */
    private ClusterConfig busCluster() {
        return ClusterConfig.builder()
                .addClass(ClassConfig.builder("slow", 30).matchHeader(SLOW_HEADER, "slow").build())
                .addClass(ClassConfig.builder("basic", 5).isDefault(true).build())
                .addServer(ServerConfig.builder("s1", URI.create("http://" + HOST + ":" + serverPort)).concurrency(64)
                        .build())
                .addGateway(GatewayConfig.builder(BUS).host(HOST).port(ports[3]).adminPort(adminPorts[3])
                        .drainTimeoutSeconds(2).build())
                .control(ControlConfig.builder().periodSeconds(CONTROL_PERIOD_SECONDS)
                        .reportPeriodSeconds(CONTROL_PERIOD_SECONDS).statsWindowSeconds(5).build())
                .kafka(busKafka)
                .dispatch(dispatch()).gatewayHttp(gatewayHttp())
                .build();
    }

    /** The rig's broker as a client of g4's bus connects to it (unsecured, topic prefix {@code abuse.}). */
    public KafkaConfig busKafka() {
        return busKafka;
    }

    /** The GRM's {@code GET /metrics}. */
    public URI grmMetrics() {
        return URI.create("http://" + HOST + ":" + grmAdminPort + "/metrics");
    }

    /** Short timeouts so that every attack resolves in seconds; a tunnel idles out as a connection does. */
    private DispatchConfig dispatch() {
        return DispatchConfig.builder().idleTimeoutSeconds(settings.idleTimeoutSeconds())
                .tunnelIdleTimeoutSeconds(settings.idleTimeoutSeconds()).maxBodyBytes(settings.maxBodyBytes())
                .backendTimeoutSeconds(30).connectTimeoutSeconds(1).build();
    }

    /** The admin port's mutations need the rig's token (an owner-only file in the rig's directory). */
    private GatewayHttpConfig gatewayHttp() {
        return GatewayHttpConfig.DEFAULT.withAdminTokenFile(tokenFile.toString());
    }

    /** The bearer token the gateways' admin ports take (what an operator holds; an attacker does not). */
    public String adminToken() {
        return adminToken;
    }

    /** The upgrade backend's slots at g3 (N(g3, ws)). */
    static final int WS_SLOTS = 32;

    private ChildProcess add(ChildProcess p) {
        all.add(p);
        return p;
    }

    /** The gateway {@code id} as an attack sees it. */
    public Target target(String id) {
        int i = index(id);
        return new Target(id, HOST, ports[i], adminPorts[i], id.equals(TLS), this);
    }

    /** The settings the rig was started with. */
    public AbuseSettings settings() {
        return settings;
    }

    /** The working directory (cluster.yaml, logs/). */
    public Path dir() {
        return dir;
    }

    /** The configuration file both gateways were started with (and reload from). */
    public Path configFile() {
        return config;
    }

    /** Writes the rig's own configuration back into {@link #configFile()}. */
    public void restoreConfig() throws IOException {
        Files.writeString(config, configText);
    }

    /** The certificate of the TLS gateway. */
    SelfSignedCert cert() {
        return cert;
    }

    /** The process id of gateway {@code id}, or -1 if it is not running. */
    public long pid(String id) {
        ChildProcess p = gateways[index(id)];
        return p.alive() ? p.pid() : -1;
    }

    /** Whether gateway {@code id} runs. */
    public boolean alive(String id) {
        return gateways[index(id)].alive();
    }

    /** Its log file (every start). */
    public Path log(String id) {
        return gateways[index(id)].log();
    }

    /** Sends gateway {@code id} a signal (HUP, TERM, …). */
    public void signal(String id, String signal) throws IOException, InterruptedException {
        gateways[index(id)].signal(signal);
    }

    /** Ends gateway {@code id} if it still runs and starts it again; returns once it is ready. */
    public void restart(String id) throws Exception {
        ChildProcess p = gateways[index(id)];
        if (p.alive()) {
            p.signal("KILL");
            p.awaitExit(10);
        }
        p.start();
        p.awaitReady(READY_SECONDS);
    }

    private static int index(String id) {
        return switch (id) {
            case PLAIN -> 0;
            case TLS -> 1;
            case WS -> 2;
            case BUS -> 3;
            default -> throw new IllegalArgumentException("gateway: " + id + " (expected: " + PLAIN + ", " + TLS + ", "
                    + WS + " or " + BUS + ")");
        };
    }

    /** Tunnels the upgrade backend holds open now. */
    int backendTunnels() {
        return upgradeBackend.tunnels();
    }

    private void destroyAll() {
        for (ChildProcess p : all) {
            p.destroy();
        }
    }

    @Override
    public void close() {
        destroyAll();
        kafka.close();
        try {
            upgradeBackend.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException ignored) {
            // already shutting down: the hook runs anyway
        }
    }

    private static String fmt(double seconds) {
        return String.format(Locale.ROOT, "%.3f", seconds);
    }
}
