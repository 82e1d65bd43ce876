package org.arbiter.gateway.server;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.gateway.allocation.ConfiguredAllocation;
import org.arbiter.gateway.netty.DataPlane;
import org.arbiter.gateway.netty.ProxyInitializer;
import org.arbiter.gateway.netty.ReloadReport;
import org.arbiter.gateway.netty.ServerTls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running gateway's configuration reloads (docs/gateway.md, Reload): compares the new file with
 * the one in force, hands what the data plane takes to {@link DataPlane#reload}, reloads the TLS
 * certificates (also when a PEM file changes on disk), and reports what was applied and what
 * needs a restart. Reloads are applied one at a time.
 *
 * <p>Reloads of the file ({@code POST /reload}, SIGHUP) and the certificate watch run on a thread of
 * their own, never on the admin event loop (a reload may wait up to 10 s for the data plane);
 * reload requests made while one runs share the next run ({@link Coalescer}).
 *
 * <p>Thread-safe.
 */
final class ConfigReloader {

    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);

    private final String id;
    private final boolean standalone;
    private final DataPlane plane;
    private final ProxyInitializer initializer;
    private final BooleanSupplier closed;
    private final Object reloadLock = new Object();
    private volatile ClusterConfig cluster;
    private volatile Path configFile;
    private long configCounter;
    private final ScheduledExecutorService worker;
    private final Coalescer<ReloadReport> fileReloads;

    ConfigReloader(String id, ClusterConfig cluster, boolean standalone, DataPlane plane, ProxyInitializer initializer,
                   BooleanSupplier closed) {
        this.id = id;
        this.cluster = cluster;
        this.standalone = standalone;
        this.plane = plane;
        this.initializer = initializer;
        this.closed = closed;
        this.worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gateway-" + id + "-reload");
            t.setDaemon(true);
            return t;
        });
        this.fileReloads = new Coalescer<>(worker, this::reloadFileNow);
    }

    /** Checks the PEM files for changes every {@code periodSeconds} (on the reload thread). */
    void watchCertificates(long periodSeconds) {
        worker.scheduleWithFixedDelay(this::watchCertificates, periodSeconds, periodSeconds, TimeUnit.SECONDS);
    }

    /** Stops the reload thread (a reload under way is interrupted; later requests fail). */
    void close() {
        worker.shutdownNow();
    }

    /** File reloads run so far (each answered at least one request). */
    long fileReloadRuns() {
        return fileReloads.runs();
    }

    /** The file {@link #reloadFile()} reads (the CLI sets it to {@code --config}). */
    public void reloadFrom(Path file) {
        this.configFile = requireNonNull(file, "file");
    }

    /**
     * Reads the file set with {@link #reloadFrom} and applies it ({@link #reload(ClusterConfig)}), on
     * the reload thread; requests made while a reload runs share the next one, which reads the file
     * after they were made. Fails with {@link org.arbiter.common.config.ConfigException} when the file
     * is invalid (nothing is applied then). Thread-safe; never blocks.
     */
    public CompletableFuture<ReloadReport> reloadFile() {
        return fileReloads.request();
    }

    private CompletableFuture<ReloadReport> reloadFileNow() {
        Path f = configFile;
        if (f == null) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "no configuration file to reload (an embedded gateway: call reload(ClusterConfig))"));
        }
        ClusterConfig next;
        try {
            next = ConfigLoader.load(f);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return reload(next);
    }

    /**
     * Applies {@code next} without a restart and without losing a request (docs/gateway.md,
     * Reload): servers added and removed (a removed server takes nothing new, its in-flight
     * requests finish), classes' match rules, queue limits and timeouts, targets and yields, the
     * configured weights and caps (while no GRM allocation is in force), the TLS certificates and
     * protocols, and other gateways (the configured split of N_s). What cannot change while
     * running (this gateway's host and ports, PROXY protocol, HTTP/2, drain settings, dispatch,
     * the class list) is reported in {@link ReloadReport#notApplied()} and logged; the rest is
     * applied. Reloads are applied one at a time. Thread-safe.
     */
    public CompletableFuture<ReloadReport> reload(ClusterConfig next) {
        requireNonNull(next, "next");
        synchronized (reloadLock) {
            Optional<GatewayConfig> found = next.gateway(id);
            if (found.isEmpty()) {
                return CompletableFuture.failedFuture(new IllegalArgumentException("gateways: " + id
                        + " is not in the file any more (expected: this gateway; to stop it, drain it)"));
            }
            GatewayConfig before = cluster.gateway(id).orElseThrow();
            GatewayConfig after = found.get();
            List<String> notApplied = new ArrayList<>();
            List<String> applied = new ArrayList<>();
            compare(notApplied, "host", before.host(), after.host());
            compare(notApplied, "port", before.port(), after.port());
            compare(notApplied, "adminPort", before.adminPort(), after.adminPort());
            compare(notApplied, "adminHost", before.adminHost(), after.adminHost());
            compare(notApplied, "proxyProtocol", before.proxyProtocol(), after.proxyProtocol());
            compare(notApplied, "http2", before.http2(), after.http2());
            compare(notApplied, "drainTimeout", before.drainTimeoutSeconds(), after.drainTimeoutSeconds());
            compare(notApplied, "drainDelay", before.drainDelaySeconds(), after.drainDelaySeconds());
            compare(notApplied, "startupGrace", before.startupGraceSeconds(), after.startupGraceSeconds());
            compare(notApplied, "adminMaxConnections", before.adminMaxConnections(), after.adminMaxConnections());
            if (!next.gatewayHttp().equals(cluster.gatewayHttp())) {
                notApplied.add("gateway (trustedProxies, accessLog, adminTokenFile): changed (needs a restart)");
            }
            if (!after.tls().equals(before.tls()) || initializer.tls() != null && initializer.tls().changed()) {
                applyTls(after, applied, notApplied);
            }
            Set<String> oldGateways = cluster.gateways().stream().map(GatewayConfig::id).collect(Collectors.toSet());
            next.gateways().stream().map(GatewayConfig::id).filter(g -> !oldGateways.contains(g))
                    .forEach(g -> applied.add("gateway " + g + " added (the configured split of N_s counts it)"));
            Allocation configured = ConfiguredAllocation.of(next, id, standalone, Instant.now());
            String hash = hash(next);
            long counter = configCounter + 1;
            DataPlane.Reload r;
            try {
                r = plane.reload(next, configured, new DataPlane.ConfigVersion(counter, hash, Instant.now()))
                        .get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                return CompletableFuture.failedFuture(e.getCause());
            } catch (Exception e) {
                return CompletableFuture.failedFuture(e);
            }
            configCounter = counter;
            cluster = next;
            r.core().serversAdded().forEach(s -> applied.add("server " + s + " added"));
            r.core().serversRemoved().forEach(s -> applied.add("server " + s + " removed (draining: no new requests)"));
            r.urlsChanged().forEach(s -> applied.add("server " + s + ": new URL"));
            r.core().classesChanged().forEach(c -> applied.add("class " + c + ": queue, target or yield changed"));
            applied.add("classes' match rules" + (r.core().notApplied().isEmpty() ? "" : " (not: the class list changed)"));
            notApplied.addAll(r.core().notApplied());
            notApplied.addAll(r.notApplied());
            ReloadReport report = new ReloadReport(counter, hash, applied, notApplied);
            LOG.info("gateway {}: configuration {} ({}) applied: {}", id, counter, hash, String.join("; ", applied));
            for (String line : notApplied) {
                LOG.warn("gateway {}: configuration {}: not applied: {}", id, counter, line);
            }
            return CompletableFuture.completedFuture(report);
        }
    }

    private static void compare(List<String> notApplied, String key, Object before, Object after) {
        if (!before.equals(after)) {
            notApplied.add("gateways[]." + key + ": " + before + " -> " + after + " (needs a restart)");
        }
    }

    private void applyTls(GatewayConfig gc, List<String> applied, List<String> notApplied) {
        if (!gc.tls().enabled()) {
            initializer.tls(null);
            applied.add("tls: off for new connections");
            return;
        }
        try {
            initializer.tls(ServerTls.load(gc.tls(), gc.http2()));
            applied.add("tls: certificates and protocols reloaded for new connections");
        } catch (IOException | RuntimeException e) {
            notApplied.add("gateways[]." + e.getMessage() + " (the previous certificates stay in use)");
        }
    }

    /** Reloads the certificates when a PEM file changed (on the reload thread, every 5 s). */
    private void watchCertificates() {
        ServerTls t = initializer.tls();
        if (t == null || closed.getAsBoolean() || !t.changed()) {
            return;
        }
        synchronized (reloadLock) {
            try {
                initializer.tls(ServerTls.load(t.config(), t.http2Offered()));
                LOG.info("gateway {}: TLS certificates changed on disk; new connections use them", id);
            } catch (IOException | RuntimeException e) {
                LOG.warn("gateway {}: TLS certificates changed on disk but cannot be used: {}; keeping the previous ones",
                        id, e.getMessage());
                // retry only on the next change: remember this state
                initializer.tls(t.withCurrentStamps());
            }
        }
    }

    /** The first 12 hex digits of the SHA-256 of the configuration's canonical text. */
    static String hash(ClusterConfig c) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256")
                    .digest(c.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
