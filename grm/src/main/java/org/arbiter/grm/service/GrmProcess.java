package org.arbiter.grm.service;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import org.arbiter.bus.KafkaBus;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.KafkaSecurity;
import org.arbiter.runtime.admin.AdminLimits;
import org.arbiter.runtime.metrics.MetricsServer;
import org.arbiter.runtime.metrics.ProcessMetrics;

/**
 * One GRM as {@code arbiter grm} runs it: its meters (with the JVM's), its admin endpoint
 * ({@code GET /metrics}, {@code /health} on {@code grm.host}:{@code adminPort}, with the gateway admin
 * port's connection cap and request timeout), its bus connection
 * and the {@link GrmService}; closed in the reverse order. Thread-safe; {@link #close()} is idempotent.
 */
public final class GrmProcess implements AutoCloseable {

    private final ProcessMetrics metrics;
    private final MetricsServer admin;
    private final KafkaBus bus;
    private final GrmService service;
    private boolean closed;

    private GrmProcess(ProcessMetrics metrics, MetricsServer admin, KafkaBus bus, GrmService service) {
        this.metrics = metrics;
        this.admin = admin;
        this.bus = bus;
        this.service = service;
    }

    /**
     * Starts a GRM.
     *
     * @param kafka     the bus to join (the file's, or with the command line's bootstrap)
     * @param adminPort the admin endpoint's port (the file's {@code grm.adminPort} or the command line's; 0 = any free port)
     * @throws IllegalStateException    when the admin port cannot be bound or Kafka cannot be reached
     * @throws IllegalArgumentException when {@code kafka.security} cannot be used (no principal, unreadable password file)
     */
    public static GrmProcess start(String id, ClusterConfig cluster, KafkaConfig kafka, int adminPort) {
        requireNonNull(id, "id");
        requireNonNull(cluster, "cluster");
        requireNonNull(kafka, "kafka");
        ProcessMetrics metrics = ProcessMetrics.createWithJvm("grm", id);
        MetricsServer admin = null;
        KafkaBus bus = null;
        try {
            admin = MetricsServer.start(id, cluster.grm().host(), adminPort, adminLimits(cluster), metrics::scrape);
            bus = KafkaBus.connect(kafka, KafkaSecurity.Role.GRM, id, metrics.registry());
            GrmService service = GrmService.start(id, cluster, bus, Clock.systemUTC(),
                    GrmService.liveStep(cluster, id), metrics);
            return new GrmProcess(metrics, admin, bus, service);
        } catch (RuntimeException e) {
            if (bus != null) {
                bus.close();
            }
            if (admin != null) {
                admin.close();
            }
            metrics.close();
            throw e;
        }
    }

    /**
     * The admin endpoint's limits, the gateway admin port's: {@link GatewayConfig#DEFAULT_ADMIN_MAX_CONNECTIONS}
     * connections, {@code dispatch.maxHeaderBytes}, {@code dispatch.idleTimeout} to deliver a request.
     */
    static AdminLimits adminLimits(ClusterConfig cluster) {
        return AdminLimits.of(GatewayConfig.DEFAULT_ADMIN_MAX_CONNECTIONS, cluster.dispatch().maxHeaderBytes(),
                cluster.dispatch().idleTimeoutSeconds());
    }

    public GrmService service() {
        return service;
    }

    public ProcessMetrics metrics() {
        return metrics;
    }

    /** The admin endpoint's bound port. */
    public int adminPort() {
        return admin.port();
    }

    /** {@code http://host:port/metrics}. */
    public String metricsUrl() {
        return "http://" + admin.host() + ":" + admin.port() + "/metrics";
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        service.close();
        bus.close();
        admin.close();
        metrics.close();
    }
}
