package org.arbiter.live;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * What the fault campaign watches in its rig: which GRMs lead (over JMX) and the allocation
 * stamp each gateway shows (over its admin HTTP port), and an {@link Observer} that polls both
 * every 100 ms while a load runs. Thread-safe: leadership reads and close are synchronized; the
 * observer runs on its own thread and publishes through volatile fields.
 */
final class FaultWatch implements AutoCloseable {

    private final ChildProcess[] grms;
    private final String[] names;
    private final int[] jmxPorts;
    private final int[] adminPorts;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private final ObjectMapper json = new ObjectMapper();
    private final JMXConnector[] jmx;
    /** With pools: the pool watched — "leaders" are its owners, the allocation stamp is its own; else null. */
    private final String pool;

    /**
     * The GRM processes and their ids, their JMX ports, and the gateways' admin ports (the arrays are the rig's,
     * read live); {@code pool}: on a rig with pools, the pool whose owners and stamp are watched, else null.
     */
    FaultWatch(ChildProcess[] grms, String[] names, int[] jmxPorts, int[] adminPorts, String pool) {
        this.pool = pool;
        this.grms = grms;
        this.names = names;
        this.jmxPorts = jmxPorts;
        this.adminPorts = adminPorts;
        this.jmx = new JMXConnector[grms.length];
    }

    /** A new observer (not started). */
    Observer observer() {
        return new Observer();
    }

    static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    @Override
    public synchronized void close() {
        for (int i = 0; i < jmx.length; i++) {
            closeJmx(i);
        }
    }

    /** Polls leadership and the allocation version every 100 ms while a load runs. */
    final class Observer implements Runnable {
        private final Thread thread = new Thread(this, "fault-observer");
        private volatile boolean running = true;
        volatile List<String> leaders = List.of();
        volatile long version;
        volatile long faultNanos;
        volatile String leaderAtFault = "";
        volatile long versionAtFault;
        private final Map<String, Double> firstLeadSinceFault = new LinkedHashMap<>();
        private volatile Double allocationSeconds;
        double leaderlessSeconds;
        double dualSeconds;
        private long lastIncreaseNanos;
        private long seenVersion;
        double longestGapSeconds;

        void start() {
            thread.setDaemon(true);
            thread.start();
        }

        /** The fault happens now: the references are the last observation. */
        void markFault() {
            List<String> now = leaders();
            leaders = now;
            leaderAtFault = now.size() == 1 ? now.get(0) : String.join(",", now);
            versionAtFault = Math.max(allocationVersion(0), allocationVersion(1));
            version = versionAtFault;
            seenVersion = versionAtFault;
            lastIncreaseNanos = System.nanoTime();
            faultNanos = lastIncreaseNanos;
        }

        synchronized Double newLeaderSeconds(String victim) {
            return firstLeadSinceFault.entrySet().stream().filter(e -> !e.getKey().equals(victim)).map(Map.Entry::getValue)
                    .min(Double::compare).orElse(null);
        }

        Double nextAllocationSeconds() {
            return allocationSeconds;
        }

        void stop() throws InterruptedException {
            running = false;
            thread.join(10_000);
            synchronized (this) {
                if (faultNanos != 0) {
                    longestGapSeconds = Math.max(longestGapSeconds, (System.nanoTime() - lastIncreaseNanos) / 1e9);
                }
            }
        }

        @Override
        public void run() {
            long last = System.nanoTime();
            while (running) {
                List<String> now = leaders();
                long v = Math.max(allocationVersion(0), allocationVersion(1));
                long t = System.nanoTime();
                double dt = (t - last) / 1e9;
                last = t;
                leaders = now;
                version = Math.max(version, v);
                long fault = faultNanos;
                if (fault != 0) {
                    double since = round((t - fault) / 1e9);
                    synchronized (this) {
                        if (now.isEmpty()) {
                            leaderlessSeconds += dt;
                        }
                        if (now.size() > 1) {
                            dualSeconds += dt;
                        }
                        for (String l : now) {
                            // A GRM counts as a new leader only if it was not leading at the fault.
                            if (!leaderAtFault.equals(l)) {
                                firstLeadSinceFault.putIfAbsent(l, since);
                            }
                        }
                    }
                    if (allocationSeconds == null && v > versionAtFault) {
                        allocationSeconds = since;
                    }
                    synchronized (this) {
                        if (v > seenVersion) {
                            seenVersion = v;
                            longestGapSeconds = Math.max(longestGapSeconds, (t - lastIncreaseNanos) / 1e9);
                            lastIncreaseNanos = t;
                        }
                    }
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /**
     * The GRMs reporting Leader over JMX (an unreachable one does not lead); on a rig with pools, the GRMs
     * whose OwnedPools name the watched pool.
     */
    List<String> leaders() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < grms.length; i++) {
            Object v = attribute(i, pool == null ? "Leader" : "OwnedPools");
            boolean leads = pool == null ? Boolean.TRUE.equals(v)
                    : v != null && List.of(v.toString().split(",")).contains(pool);
            if (leads) {
                out.add(names[i]);
            }
        }
        return out;
    }

    /** On a rig with pools: every GRM that runs owns a pool, and no pool has two owners. */
    boolean poolOwned() {
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < grms.length; i++) {
            Object v = attribute(i, "OwnedPools");
            if (v == null || v.toString().isEmpty()) {
                return false;
            }
            for (String p : v.toString().split(",")) {
                if (seen.contains(p)) {
                    return false;
                }
                seen.add(p);
            }
        }
        return true;
    }

    private synchronized Object attribute(int i, String name) {
        if (!grms[i].alive()) {
            closeJmx(i);
            return null;
        }
        try {
            if (jmx[i] == null) {
                jmx[i] = JMXConnectorFactory.connect(new JMXServiceURL(
                        "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPorts[i] + "/jmxrmi"));
            }
            MBeanServerConnection mbs = jmx[i].getMBeanServerConnection();
            return mbs.getAttribute(new ObjectName("arbiter:type=Grm,id=" + names[i]), name);
        } catch (Exception e) {
            closeJmx(i);
            return null;
        }
    }

    private void closeJmx(int i) {
        if (jmx[i] != null) {
            try {
                jmx[i].close();
            } catch (IOException | RuntimeException ignored) {
                // gone already
            }
            jmx[i] = null;
        }
    }

    /** An allocation's (epoch, version) as one long: epoch · 10^6 + version (capped). */
    static final long STAMP_EPOCH_FACTOR = 1_000_000L;

    /** The version part of a stamp, for reports. */
    static long versionOf(long stamp) {
        return stamp % STAMP_EPOCH_FACTOR;
    }

    /**
     * The (epoch, version) stamp of the allocation gateway {@code i}'s /allocation shows (on a rig with
     * pools, the watched pool's), as one number ordered like the pair (0 when it cannot be read): a new
     * leader's epoch restarts the version at 1, so the version alone would look like a step back.
     */
    long allocationVersion(int i) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPorts[i]
                    + "/allocation")).timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                return 0;
            }
            JsonNode body = json.readTree(r.body());
            if (pool != null) { // the watched pool's own stamp: the other pool's owner keeps publishing meanwhile
                body = body.path("pools").path(pool);
            }
            JsonNode v = body.get("version");
            JsonNode e = body.get("epoch");
            long version = v == null ? 0 : Math.min(v.asLong(), STAMP_EPOCH_FACTOR - 1);
            return (e == null ? 0 : e.asLong()) * STAMP_EPOCH_FACTOR + version;
        } catch (IOException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

}
