package org.arbiter.common.config;

import com.fasterxml.jackson.annotation.JsonValue;

import static java.util.Objects.requireNonNull;

import java.net.InetAddress;
import java.util.List;

/**
 * Settings shared by every gateway's HTTP front end ({@code gateway:} in cluster.yaml).
 * Immutable and thread-safe.
 *
 * @param trustedProxies peers whose {@code X-Forwarded-*} headers are kept and appended to; from
 *                       any other peer they are overwritten
 * @param accessLog      the access log, or {@link AccessLog#OFF}
 * @param threads        the data plane's event loops per gateway; 0: one per core
 * @param transport      the socket transport of the data plane
 * @param maxConnections open client connections on a gateway's data port beyond this are closed before any
 *                       byte is read; 0: 80 % of the process's file-descriptor limit
 * @param bodyBudgetBytes the bytes of buffered request bodies a gateway holds at once, across all its
 *                       connections and streams; a body that would exceed it gets 503; 0: a quarter of the heap
 * @param adminTokenFile the file holding the bearer token that admin-port mutations ({@code POST /drain},
 *                       {@code POST /reload}) must present; null: none, and mutations are refused (403).
 *                       Read, and its mode checked, when a gateway starts, not when the file is loaded: the
 *                       GRM and the console read the same cluster file without access to it
 */
public record GatewayHttpConfig(List<Cidr> trustedProxies, AccessLog accessLog, int threads, Transport transport,
                                int maxConnections, long bodyBudgetBytes, String adminTokenFile) {

    public static final GatewayHttpConfig DEFAULT = new GatewayHttpConfig(List.of(), AccessLog.OFF);

    /** The most event loops a gateway may be given. */
    public static final int MAX_THREADS = 256;

    public GatewayHttpConfig {
        trustedProxies = List.copyOf(requireNonNull(trustedProxies, "trustedProxies"));
        requireNonNull(accessLog, "accessLog");
        requireNonNull(transport, "transport");
        if (adminTokenFile != null && adminTokenFile.isBlank()) {
            throw new IllegalArgumentException("adminTokenFile: an empty string (expected: a file path, or absent)");
        }
        if (threads < 0 || threads > MAX_THREADS) {
            throw new IllegalArgumentException("threads: " + threads + " (expected: 0..." + MAX_THREADS + ", 0 for one per core)");
        }
        if (maxConnections < 0) {
            throw new IllegalArgumentException("maxConnections: " + maxConnections + " (expected: >= 0, 0 for 80 % of "
                    + "the file-descriptor limit)");
        }
        if (bodyBudgetBytes < 0) {
            throw new IllegalArgumentException("bodyBudget: " + bodyBudgetBytes + " (expected: >= 0, 0 for a quarter "
                    + "of the heap)");
        }
    }

    /** One loop per core, the transport chosen at start, no admin token. */
    public GatewayHttpConfig(List<Cidr> trustedProxies, AccessLog accessLog) {
        this(trustedProxies, accessLog, 0, Transport.AUTO);
    }

    /** Without an admin token (admin-port mutations are refused); connections and the body budget sized from the process. */
    public GatewayHttpConfig(List<Cidr> trustedProxies, AccessLog accessLog, int threads, Transport transport) {
        this(trustedProxies, accessLog, threads, transport, 0, 0, null);
    }

    /** Connections and the body budget sized from the process (0, 0). */
    public GatewayHttpConfig(List<Cidr> trustedProxies, AccessLog accessLog, int threads, Transport transport,
                             String adminTokenFile) {
        this(trustedProxies, accessLog, threads, transport, 0, 0, adminTokenFile);
    }

    /** Without an admin token (admin-port mutations are refused). */
    public GatewayHttpConfig(List<Cidr> trustedProxies, AccessLog accessLog, int threads, Transport transport,
                             int maxConnections, long bodyBudgetBytes) {
        this(trustedProxies, accessLog, threads, transport, maxConnections, bodyBudgetBytes, null);
    }

    /** The number of event loops to run: {@link #threads}, or the number of cores when it is 0. */
    public int eventLoops() {
        return threads > 0 ? threads : Math.max(1, Runtime.getRuntime().availableProcessors());
    }

    /** This configuration with {@code n} event loops (0: one per core). */
    public GatewayHttpConfig withThreads(int n) {
        return new GatewayHttpConfig(trustedProxies, accessLog, n, transport, maxConnections, bodyBudgetBytes,
                adminTokenFile);
    }

    /** This configuration with the admin token in {@code file} (null: none). */
    public GatewayHttpConfig withAdminTokenFile(String file) {
        return new GatewayHttpConfig(trustedProxies, accessLog, threads, transport, maxConnections, bodyBudgetBytes, file);
    }

    /**
     * The socket transport: {@code auto} takes io_uring where the kernel offers it, else epoll, else NIO; the
     * others insist on one (and fail at start if it cannot load).
     */
    public enum Transport implements Choice {
        AUTO("auto"), IO_URING("io_uring"), EPOLL("epoll"), NIO("nio");

        private final String wireName;

        Transport(String wireName) {
            this.wireName = wireName;
        }

        @Override
        @JsonValue
        public String wireName() {
            return wireName;
        }
    }

    /** True when {@code peer} lies in one of {@link #trustedProxies}. */
    public boolean trusted(InetAddress peer) {
        if (peer == null) {
            return false;
        }
        for (Cidr c : trustedProxies) {
            if (c.contains(peer)) {
                return true;
            }
        }
        return false;
    }

    /**
     * One line per request, written through Log4j 2 with size-based rotation.
     *
     * @param path         the file ({@code {gateway}} is replaced by the gateway id); null: no log
     * @param format       {@code combined} or {@code json}
     * @param maxFileBytes the file is rolled over when it reaches this size
     * @param maxFiles     rolled files kept ({@code path.1} … {@code path.N})
     */
    public record AccessLog(String path, Format format, long maxFileBytes, int maxFiles) {

        public static final AccessLog OFF = new AccessLog(null, GatewayHttpSection.ACCESS_LOG_FORMAT.defaultValue(),
                GatewayHttpSection.ACCESS_LOG_MAX_FILE_SIZE.defaultValue(), GatewayHttpSection.ACCESS_LOG_MAX_FILES.defaultValue());

        public AccessLog {
            requireNonNull(format, "format");
            if (maxFileBytes < 1024) {
                throw new IllegalArgumentException("maxFileBytes: " + maxFileBytes + " (expected: >= 1024)");
            }
            if (maxFiles < 1) {
                throw new IllegalArgumentException("maxFiles: " + maxFiles + " (expected: >= 1)");
            }
        }

        public boolean enabled() {
            return path != null;
        }

        /** The file for gateway {@code gatewayId}. */
        public String pathFor(String gatewayId) {
            return path.replace("{gateway}", gatewayId);
        }

        /** An access log line: combined (Apache/nginx) or json. */
        public enum Format implements Choice {
            COMBINED("combined"), JSON("json");

            private final String wireName;

            Format(String wireName) {
                this.wireName = wireName;
            }

            @JsonValue
            @Override
            public String wireName() {
                return wireName;
            }

            @Override
            public String toString() {
                return wireName;
            }
        }
    }
}
