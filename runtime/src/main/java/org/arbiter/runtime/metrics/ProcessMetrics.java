package org.arbiter.runtime.metrics;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.jmx.JmxConfig;
import io.micrometer.jmx.JmxMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One process component's meters: Micrometer on JMX (domain {@code arbiter}) and Prometheus,
 * composed into one registry, plus registration of the component's own MBeans
 * ({@code arbiter:type=Gateway,id=g1}, {@code arbiter:type=Grm}). Several components may live in
 * one JVM (the demo): each gets its own instance, tagged by {@code component} and {@code id}, and
 * {@link #close()} unregisters exactly what it registered.
 *
 * <p>Thread-safe.
 */
public final class ProcessMetrics implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ProcessMetrics.class);

    private final CompositeMeterRegistry registry = new CompositeMeterRegistry();
    private final PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JmxMeterRegistry jmx;
    private final List<ObjectName> mbeans = new ArrayList<>();
    private final List<MeterBinder> binders = new ArrayList<>();

    private ProcessMetrics(String component, String id, boolean jvmMeters) {
        String domain = "arbiter";
        this.jmx = new JmxMeterRegistry(new JmxConfig() {
            @Override
            public String get(String key) {
                return null;
            }

            @Override
            public String domain() {
                return domain;
            }

            @Override
            public Duration step() {
                return Duration.ofSeconds(5);
            }
        }, Clock.SYSTEM);
        registry.add(prometheus);
        registry.add(jmx);
        // Micrometer's JVM binders tag memory and buffer pools "id", which would replace the
        // component's id: their pool is tagged "pool" instead (filters apply in this order).
        registry.config().meterFilter(MeterFilter.renameTag("jvm.memory", "id", "pool"))
                .meterFilter(MeterFilter.renameTag("jvm.buffer", "id", "pool"))
                .commonTags("component", component, "id", id);
        if (jvmMeters) {
            binders.addAll(List.of(new JvmMemoryMetrics(), new JvmGcMetrics(), new JvmThreadMetrics(),
                    new ClassLoaderMetrics(), new ProcessorMetrics(), new UptimeMetrics(), new FileDescriptorMetrics()));
            binders.forEach(b -> b.bindTo(registry));
        }
    }

    /**
     * @param component gateway, grm, console, …
     * @param id        the component's id (g1, grm-a, …)
     */
    public static ProcessMetrics create(String component, String id) {
        return new ProcessMetrics(requireNonNull(component, "component"), requireNonNull(id, "id"), false);
    }

    /**
     * As {@link #create} with the JVM and process meters: memory, GC, threads, class loading,
     * CPU, uptime and file descriptors (Prometheus {@code jvm_*}, {@code process_*},
     * {@code system_*}). Every component that answers a scrape on its own port has them, so each
     * endpoint is complete by itself; in one JVM (the demo) they show the same JVM under each
     * component's tags.
     */
    public static ProcessMetrics createWithJvm(String component, String id) {
        return new ProcessMetrics(requireNonNull(component, "component"), requireNonNull(id, "id"), true);
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** Prometheus text exposition of every meter. */
    public String scrape() {
        return prometheus.scrape();
    }

    /**
     * Registers an MBean under {@code arbiter:<properties>} (e.g. {@code type=Gateway,id=g1}),
     * replacing one left by an earlier instance of the same component.
     */
    public <T> void registerMBean(String properties, Class<T> mbeanInterface, T implementation) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("arbiter:" + properties);
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);
            }
            server.registerMBean(new StandardMBean(implementation, mbeanInterface), name);
            mbeans.add(name);
        } catch (Exception e) {
            LOG.warn("cannot register MBean arbiter:{}: {}", properties, e.toString());
        }
    }

    @Override
    public void close() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (ObjectName name : mbeans) {
            try {
                if (server.isRegistered(name)) {
                    server.unregisterMBean(name);
                }
            } catch (Exception e) {
                LOG.warn("cannot unregister {}: {}", name, e.toString());
            }
        }
        mbeans.clear();
        for (MeterBinder b : binders) {
            if (b instanceof AutoCloseable c) { // JvmGcMetrics: its GC notification listeners
                try {
                    c.close();
                } catch (Exception e) {
                    LOG.warn("cannot close {}: {}", b.getClass().getSimpleName(), e.toString());
                }
            }
        }
        binders.clear();
        registry.close();
        jmx.close();
        prometheus.close();
    }
}
