package org.arbiter.common.config;

import static org.arbiter.common.config.ConfigKey.bool;
import static org.arbiter.common.config.ConfigKey.bytes;
import static org.arbiter.common.config.ConfigKey.choice;
import static org.arbiter.common.config.ConfigKey.duration;
import static org.arbiter.common.config.ConfigKey.integer;
import static org.arbiter.common.config.ConfigKey.number;
import static org.arbiter.common.config.ConfigKey.string;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The {@code dispatch} section, declared once: scheduler, balancer, polls, timeouts, limits, backend
 * TLS, the adaptive switch and ejection.
 *
 * <p>Stateless and thread-safe.
 */
final class DispatchSection {

    private DispatchSection() {
    }

    static final ConfigKey<DispatchConfig, DispatchConfig.Scheduler> SCHEDULER = choice("scheduler",
            DispatchConfig::scheduler, DispatchConfig.Scheduler.class, DispatchConfig.Scheduler.WRR,
            "how queued requests are released; the last four are 002's yield schedulers "
                    + "([gateway](gateway.md#yield-scheduling-002)) and answer a request that can earn no yield with "
                    + "503 `zeroYield`");
    static final ConfigKey<DispatchConfig, DispatchConfig.Balancer> BALANCER = choice("balancer",
            DispatchConfig::balancer, DispatchConfig.Balancer.class, DispatchConfig.Balancer.LEAST_OUTSTANDING,
            "which server gets a released request");
    static final ConfigKey<DispatchConfig, Integer> POLL_SIZE = integer("pollSize", DispatchConfig::pollSize, 3,
            v -> v >= 1, ">= 1", "the older name of `poll.count`, read when `poll.count` is absent");
    static final ConfigKey<DispatchConfig, Integer> POLL_COUNT = integer("poll.count", DispatchConfig::pollSize, 3,
            v -> v >= 1, ">= 1", "d of random polling (002 §3); `pollSize` is still read when `poll.count` is absent");
    static final ConfigKey<DispatchConfig, Double> POLL_DEADLINE = duration("poll.deadline",
            DispatchConfig::pollDeadlineSeconds, 0.010, v -> v > 0, "> 0",
            "a load poll not answered within this is discarded; 3 misses in a row skip the server for 1 s "
                    + "([gateway.md](gateway.md#random-polling-002-3))");
    static final ConfigKey<DispatchConfig, Double> BACKEND_TIMEOUT = duration("backendTimeout",
            DispatchConfig::backendTimeoutSeconds, 60, v -> v > 0, "> 0", "slower backends: 504");
    static final ConfigKey<DispatchConfig, Double> CONNECT_TIMEOUT = duration("connectTimeout",
            DispatchConfig::connectTimeoutSeconds, 2, v -> v > 0, "> 0", "a slower connect to a backend fails; the request goes back to the head of its class queue");
    static final ConfigKey<DispatchConfig, Long> MAX_BODY_BYTES = bytes("maxBodyBytes", DispatchConfig::maxBodyBytes,
            10L << 20, 0, "larger bodies: 413");
    static final ConfigKey<DispatchConfig, Long> MAX_HEADER_BYTES = bytes("maxHeaderBytes",
            DispatchConfig::maxHeaderBytes, 16L << 10, 256, "larger heads: 431 (data and admin ports)");
    static final ConfigKey<DispatchConfig, Double> IDLE_TIMEOUT = duration("idleTimeout",
            DispatchConfig::idleTimeoutSeconds, 60, v -> v > 0, "> 0",
            "a client connection with no request being answered for this long is closed: idle or trickling HTTP/1.1 "
                    + "(heads and bodies), an HTTP/2 connection (h2c or h2 over TLS) with no open stream, an HTTP/2 stream "
                    + "whose request is not complete (data and admin ports)");
    static final ConfigKey<DispatchConfig, Double> TUNNEL_IDLE_TIMEOUT = duration("tunnelIdleTimeout",
            DispatchConfig::tunnelIdleTimeoutSeconds, 600, v -> v > 0 && !Double.isInfinite(v), "> 0",
            "an upgraded connection (WebSocket tunnel) with no byte either way for this long is closed, and its slot "
                    + "at the server freed");
    static final ConfigKey<DispatchConfig, Double> TUNNEL_SHARE = number("tunnelShare", DispatchConfig::tunnelShare, 0.5,
            v -> v > 0 && v <= 1, "0 < x <= 1",
            "the most of the gateway's server slots (the sum of its N(g,s) in force) that upgraded connections "
                    + "(WebSocket tunnels) and upgrades waiting for one may hold; an upgrade beyond it is answered 503 "
                    + "(`tunnelsFull`, `Retry-After: 1`), so tunnels never take every slot from ordinary requests "
                    + "([gateway.md](gateway.md#websocket-and-upgrade))");
    static final ConfigKey<DispatchConfig, Boolean> CLASS_HEADER = bool("classHeader", DispatchConfig::classHeader,
            true, "add `X-Arbiter-Class` to responses");
    static final ConfigKey<DispatchConfig, String> TLS_CA = string("tls.ca",
            (DispatchConfig d) -> d.tls().ca() == null ? null : d.tls().ca().toString(), null,
            "the certificates that may sign an `https://` server's certificate")
            .docDefault("the JVM's trust store").docRule("readable PEM file");
    static final ConfigKey<DispatchConfig, Boolean> TLS_VERIFY = bool("tls.verify", (DispatchConfig d) -> d.tls().verify(), true,
            "check the `https://` server's chain and that it names the URL's host; false accepts any certificate "
                    + "(lab servers only)");
    static final ConfigKey<DispatchConfig, Double> ADAPTIVE_DROP_RATIO = number("adaptive.dropRatio",
            (DispatchConfig d) -> d.adaptive().dropRatio(), 0.05, v -> v >= 0 && v < 1, "0 <= x < 1",
            "`adaptive` uses greedy while the gateway dropped more than this share of the requests that arrived in "
                    + "the window, yid otherwise (002 §4.2)");
    static final ConfigKey<DispatchConfig, Double> ADAPTIVE_WINDOW = duration("adaptive.window",
            (DispatchConfig d) -> d.adaptive().windowSeconds(), 30, v -> v > 0, "> 0", "the window of that drop ratio");
    static final ConfigKey<DispatchConfig, DispatchConfig.Admission.Mode> ADMISSION_MODE = choice("admission.mode",
            (DispatchConfig d) -> d.admission().mode(), DispatchConfig.Admission.Mode.class,
            DispatchConfig.Admission.Mode.OFF,
            "the local admission path between GRM periods: `deadline` answers 503 (`shed`, `Retry-After: 1`) at once a "
                    + "request whose expected response time — its class queue ahead of it at the class's drain rate, plus "
                    + "its measured service time — exceeds `factor` × its class's target, lowest-value classes first; "
                    + "`off` queues it ([gateway](gateway.md#local-admission))");
    static final ConfigKey<DispatchConfig, Double> ADMISSION_FACTOR = number("admission.factor",
            (DispatchConfig d) -> d.admission().factor(), 1.0, v -> v > 0 && v <= 100, "0 < x <= 100",
            "how far above its target a request's expected response time may be before `deadline` sheds it");
    static final ConfigKey<DispatchConfig, Integer> EJECTION_THRESHOLD = integer("ejection.threshold",
            (DispatchConfig d) -> d.ejection().threshold(), 3, v -> v >= 1 && v <= 1000, "1..1000",
            "failures in a row (refused or timed-out connects, resets, 5xx, backend timeouts, failed probes) that "
                    + "eject a server");
    static final ConfigKey<DispatchConfig, Double> EJECTION_BASE_BACKOFF = duration("ejection.baseBackoff",
            (DispatchConfig d) -> d.ejection().baseBackoffSeconds(), 1, v -> v > 0, "> 0",
            "the first ejection's length; each further ejection in a row doubles it");
    static final ConfigKey<DispatchConfig, Double> EJECTION_MAX_BACKOFF = duration("ejection.maxBackoff",
            (DispatchConfig d) -> d.ejection().maxBackoffSeconds(), 30, v -> v > 0, "> 0",
            "the longest ejection; a server that stayed up this long starts again at baseBackoff")
            .docDefault("30s (or baseBackoff if larger)").docRule("duration ≥ baseBackoff");

    /** Every key but {@code pollSize}, the older name that is read but never written. */
    static final List<ConfigKey<DispatchConfig, ?>> KEYS = List.of(SCHEDULER, BALANCER, POLL_COUNT, POLL_DEADLINE,
            BACKEND_TIMEOUT, CONNECT_TIMEOUT, MAX_BODY_BYTES, MAX_HEADER_BYTES, IDLE_TIMEOUT, TUNNEL_IDLE_TIMEOUT, TUNNEL_SHARE, CLASS_HEADER,
            TLS_CA,
            TLS_VERIFY, ADAPTIVE_DROP_RATIO, ADAPTIVE_WINDOW, ADMISSION_MODE, ADMISSION_FACTOR, EJECTION_THRESHOLD,
            EJECTION_BASE_BACKOFF, EJECTION_MAX_BACKOFF);

    static DispatchConfig read(Node d) {
        Node poll = d.object("poll");
        int pollCount = POLL_COUNT.read(poll, d.has("pollSize") ? POLL_SIZE.read(d) : POLL_COUNT.defaultValue());
        double pollDeadline = POLL_DEADLINE.read(poll);
        poll.finish();
        DispatchConfig.Scheduler scheduler = SCHEDULER.read(d);
        DispatchConfig.Balancer balancer = BALANCER.read(d);
        double backendTimeout = BACKEND_TIMEOUT.read(d);
        double connectTimeout = CONNECT_TIMEOUT.read(d);
        long maxBody = MAX_BODY_BYTES.read(d);
        long maxHeader = MAX_HEADER_BYTES.read(d);
        double idleTimeout = IDLE_TIMEOUT.read(d);
        double tunnelIdleTimeout = TUNNEL_IDLE_TIMEOUT.read(d);
        double tunnelShare = TUNNEL_SHARE.read(d);
        boolean classHeader = CLASS_HEADER.read(d);
        DispatchConfig.Ejection ejection = readEjection(d.object("ejection"));
        Node a = d.object("adaptive");
        DispatchConfig.Adaptive adaptive = new DispatchConfig.Adaptive(ADAPTIVE_DROP_RATIO.read(a), ADAPTIVE_WINDOW.read(a));
        a.finish();
        Node ad = d.object("admission");
        DispatchConfig.Admission admission = new DispatchConfig.Admission(ADMISSION_MODE.read(ad), ADMISSION_FACTOR.read(ad));
        ad.finish();
        BackendTls tls = readBackendTls(d.object("tls"));
        d.finish();
        return new DispatchConfig(scheduler, balancer, pollCount, backendTimeout, connectTimeout, maxBody, maxHeader,
                idleTimeout, classHeader, ejection, adaptive, pollDeadline, tls, tunnelIdleTimeout, tunnelShare, admission);
    }

    private static DispatchConfig.Ejection readEjection(Node e) {
        int threshold = EJECTION_THRESHOLD.read(e);
        double base = EJECTION_BASE_BACKOFF.read(e);
        double max = EJECTION_MAX_BACKOFF.read(e, Math.max(EJECTION_MAX_BACKOFF.defaultValue(), base));
        e.finish();
        if (max < base) {
            e.error("maxBackoff", Durations.format(max) + " (expected: >= dispatch.ejection.baseBackoff, "
                    + Durations.format(base) + ")");
        }
        return new DispatchConfig.Ejection(threshold, base, Math.max(max, base)); // bad values fell back to defaults
    }

    /** {@code dispatch.tls}: {@code ca} (PEM, default the JVM's trust store) and {@code verify} (default true). */
    private static BackendTls readBackendTls(Node t) {
        Path ca = ConfigValues.pemFile(t, TLS_CA.leaf(), false);
        boolean verify = TLS_VERIFY.read(t);
        t.finish();
        return new BackendTls(ca, verify);
    }

    static void check(DispatchConfig d, String path, List<String> errors) {
        Sections.check(d, path, KEYS, errors);
    }

    /** The tree; {@code tls} only when it is not the default. */
    static Map<String, Object> write(DispatchConfig d) {
        Map<String, Object> tree = Sections.write(d, KEYS);
        if (d.tls().equals(BackendTls.DEFAULT)) {
            tree.remove("tls");
        }
        return tree;
    }
}
