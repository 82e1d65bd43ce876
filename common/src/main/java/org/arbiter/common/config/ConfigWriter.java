package org.arbiter.common.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a {@link ClusterConfig} back as YAML with every default filled in, in the same schema
 * {@link ConfigLoader} reads (the output loads again to an equal configuration). Password hashes
 * and token digests are not secrets but are shown only as their count.
 *
 * <p>Stateless and thread-safe.
 */
public final class ConfigWriter {

    private ConfigWriter() {
    }

    public static String toYaml(ClusterConfig c) {
        try {
            return ConfigLoader.YAML.writeValueAsString(toTree(c));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write configuration", e);
        }
    }

    static Map<String, Object> toTree(ClusterConfig c) {
        Map<String, Object> root = new LinkedHashMap<>();
        List<Object> classes = new ArrayList<>();
        for (ClassConfig k : c.classes()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", k.name());
            m.put("target", Durations.format(k.targetSeconds()));
            if (k.yield() != null) {
                m.put("yield", map("shape", k.yield().shape().wireName(), "value", k.yield().full(),
                        "dropPenalty", k.yield().dropPenalty(), "deadline", Durations.format(k.yield().deadlineSeconds()),
                        "preDeadline", Durations.format(k.yield().preDeadlineSeconds())));
            } else {
                m.put("utility", map("phi", k.utility().phi(), "alpha", k.utility().alpha(), "beta", k.utility().beta()));
            }
            m.put("weight", k.weight());
            m.put("minShare", k.minShare());
            if (k.closedLoop()) {
                m.put("thinkTime", Durations.format(k.thinkTimeSeconds()));
            }
            Map<String, Object> match = new LinkedHashMap<>();
            if (!k.match().headers().isEmpty()) {
                match.put("header", k.match().headers());
            }
            putIf(match, "path", k.match().path());
            putIf(match, "method", k.match().method());
            putIf(match, "host", k.match().host());
            if (k.match().source() != null) {
                match.put("source", k.match().source().toString());
            }
            if (!match.isEmpty()) {
                m.put("match", match);
            }
            m.put("queue", map("limit", k.queue().limit(), "timeout", Durations.format(k.queue().timeoutSeconds())));
            if (k.isDefault()) {
                m.put("default", true);
            }
            classes.add(m);
        }
        root.put("classes", classes);
        List<Object> servers = new ArrayList<>();
        for (ServerConfig s : c.servers()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", s.id());
            m.put("url", s.url().toString());
            m.put("concurrency", s.autoConcurrency() ? "auto" : s.concurrency());
            if (s.loadUrl() != null) {
                m.put("loadUrl", s.loadUrl().toString());
            }
            if (s.adminUrl() != null) {
                m.put("adminUrl", s.adminUrl().toString());
            }
            m.put("power", map("off", s.power().offWatts(), "boot", s.power().bootWatts(),
                    "idle", s.power().idleWatts(), "busy", s.power().busyWatts()));
            Map<String, Object> demand = new LinkedHashMap<>();
            s.sim().demandSeconds().forEach((k, v) -> demand.put(k, Durations.format(v)));
            Map<String, Object> sim = map("cores", s.sim().cores(), "meanDemand", Durations.format(s.sim().meanDemandSeconds()),
                    "ioFraction", s.sim().ioFraction(), "overhead", s.sim().overhead(), "knee", s.sim().knee());
            if (!demand.isEmpty()) {
                sim.put("demand", demand);
            }
            m.put("sim", sim);
            ServerConfig.ConcurrencyControl cc = s.control();
            if (!cc.equals(ServerConfig.ConcurrencyControl.DEFAULT)) {
                m.put("concurrencyControl", map("method", cc.method().wireName(), "min", cc.min(), "max", cc.max(),
                        "latencyMax", Durations.format(cc.latencyMaxSeconds()), "abandonMax", cc.abandonMax(),
                        "gain", cc.gain(), "maxStep", cc.maxStep(), "hysteresis", cc.hysteresis()));
            }
            if (s.health().enabled()) {
                m.put("health", map("path", s.health().path(), "interval", Durations.format(s.health().intervalSeconds()),
                        "timeout", Durations.format(s.health().timeoutSeconds())));
            }
            servers.add(m);
        }
        root.put("servers", servers);
        List<Object> gateways = new ArrayList<>();
        for (GatewayConfig g : c.gateways()) {
            Map<String, Object> gm = map("id", g.id(), "host", g.host(), "port", g.port(), "adminPort", g.adminPort(),
                    "drainTimeout", Durations.format(g.drainTimeoutSeconds()),
                    "startupGrace", Durations.format(g.startupGraceSeconds()),
                    "adminMaxConnections", g.adminMaxConnections(),
                    "drainDelay", Durations.format(g.drainDelaySeconds()), "proxyProtocol", g.proxyProtocol(),
                    "http2", g.http2());
            if (g.tls().enabled()) {
                Map<String, Object> tm = map("cert", g.tls().cert().toString(), "key", g.tls().key().toString());
                if (!g.tls().protocols().isEmpty()) {
                    tm.put("protocols", g.tls().protocols());
                }
                if (!g.tls().sni().isEmpty()) {
                    Map<String, Object> sni = new java.util.TreeMap<>();
                    g.tls().sni().forEach((h, ck) -> sni.put(h, map("cert", ck.cert().toString(), "key", ck.key().toString())));
                    tm.put("sni", sni);
                }
                gm.put("tls", tm);
            }
            gateways.add(gm);
        }
        root.put("gateways", gateways);
        DispatchConfig d = c.dispatch();
        root.put("dispatch", map("scheduler", d.scheduler().wireName(), "balancer", d.balancer().wireName(), "poll", map("count", d.pollSize(), "deadline", Durations.format(d.pollDeadlineSeconds())),
                "backendTimeout", Durations.format(d.backendTimeoutSeconds()),
                "connectTimeout", Durations.format(d.connectTimeoutSeconds()),
                "maxBodyBytes", Durations.formatBytes(d.maxBodyBytes()),
                "maxHeaderBytes", Durations.formatBytes(d.maxHeaderBytes()),
                "idleTimeout", Durations.format(d.idleTimeoutSeconds()), "classHeader", d.classHeader(),
                "ejection", map("threshold", d.ejection().threshold(),
                        "baseBackoff", Durations.format(d.ejection().baseBackoffSeconds()),
                        "maxBackoff", Durations.format(d.ejection().maxBackoffSeconds())),
                "adaptive", map("dropRatio", d.adaptive().dropRatio(),
                        "window", Durations.format(d.adaptive().windowSeconds()))));
        if (!d.tls().equals(BackendTls.DEFAULT)) {
            Map<String, Object> bt = map("verify", d.tls().verify());
            if (d.tls().ca() != null) {
                bt.put("ca", d.tls().ca().toString());
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> dm = (Map<String, Object>) root.get("dispatch");
            dm.put("tls", bt);
        }
        ControlConfig k = c.control();
        root.put("control", map("period", Durations.format(k.periodSeconds()),
                "reportPeriod", Durations.format(k.reportPeriodSeconds()),
                "statsWindow", Durations.format(k.statsWindowSeconds()), "combine", k.combine().wireName(),
                "granularity", k.granularity(), "minWeight", k.minWeight(), "responseTimeCap", k.responseTimeCap(),
                "prediction", k.prediction().wireName(), "gain", k.gain(),
                "maxClockSkew", Durations.format(k.maxClockSkewSeconds()),
                "liu", map("k", k.liu().k(), "pi", map("kp", k.liu().kp(), "ki", k.liu().ki()))));
        SizingConfig z = c.sizing();
        Map<String, Object> sizing = map("policy", z.policy().wireName(), "minServers", z.minServers(), "maxServers", z.maxServers(),
                "startupDelay", Durations.format(z.startupDelaySeconds()),
                "shutdownDelay", Durations.format(z.shutdownDelaySeconds()), "dropRatio", z.dropRatio(),
                "utilityFloor", z.utilityFloor(), "staticCapacity", z.staticCapacity(), "estimator", z.estimator().wireName(),
                "warmUp", Durations.format(z.warmUpSeconds()), "forecast", z.forecast().wireName());
        if (!z.schedule().isEmpty()) {
            sizing.put("schedule", map("slot", Durations.format(z.scheduleSlotSeconds()), "servers", z.schedule()));
        }
        root.put("sizing", sizing);
        Map<String, Object> power = map("actuator", c.power().actuator().wireName());
        putIf(power, "command", c.power().command());
        power.put("timeout", Durations.format(c.power().timeoutSeconds()));
        power.put("attempts", c.power().attempts());
        power.put("retryDelay", Durations.format(c.power().retryDelaySeconds()));
        root.put("power", power);
        Map<String, Object> kafka = new LinkedHashMap<>();
        putIf(kafka, "bootstrap", c.kafka().bootstrap());
        kafka.put("topicPrefix", c.kafka().topicPrefix());
        kafka.put("properties", c.kafka().properties());
        KafkaSecurity sec = c.kafka().security();
        if (sec.enabled()) {
            Map<String, Object> security = map("protocol", sec.protocol().wireName(), "mechanism", sec.mechanism().wireName());
            if (sec.tlsEnabled()) {
                Map<String, Object> tls = new LinkedHashMap<>();
                putIf(tls, "truststore", str(sec.tls().truststore()));
                putIf(tls, "truststorePasswordFile", str(sec.tls().truststorePasswordFile()));
                tls.put("verifyHostname", sec.tls().verifyHostname());
                security.put("tls", tls);
            }
            Map<String, Object> principals = new LinkedHashMap<>();
            for (KafkaSecurity.Role role : KafkaSecurity.Role.values()) {
                sec.principal(role).ifPresent(who -> {
                    Map<String, Object> m = map("username", who.username());
                    putIf(m, "passwordFile", str(who.passwordFile()));
                    putIf(m, "keystore", str(who.keystore()));
                    putIf(m, "keystorePasswordFile", str(who.keystorePasswordFile()));
                    putIf(m, "keyPasswordFile", str(who.keyPasswordFile()));
                    principals.put(role.key(), m);
                });
            }
            security.put("principals", principals);
            kafka.put("security", security);
        }
        root.put("kafka", kafka);
        Map<String, Object> console = map("port", c.console().port(), "publicRead", c.console().publicRead());
        List<Object> users = new ArrayList<>();
        c.console().users().forEach(u -> users.add(map("name", u.name(), "passwordHash", u.passwordHash(), "role", u.role().wireName())));
        List<Object> tokens = new ArrayList<>();
        c.console().tokens().forEach(t -> tokens.add(map("name", t.name(), "sha256", t.sha256(), "role", t.role().wireName())));
        console.put("users", users);
        console.put("tokens", tokens);
        ConsoleConfig.Login l = c.console().login();
        console.put("login", map("freeFailures", l.freeFailures(), "delay", Durations.format(l.delaySeconds()),
                "maxDelay", Durations.format(l.maxDelaySeconds()), "lockoutAfter", l.lockoutAfter(),
                "lockout", Durations.format(l.lockoutSeconds()), "forgetAfter", Durations.format(l.forgetAfterSeconds())));
        root.put("console", console);
        GatewayHttpConfig h = c.gatewayHttp();
        Map<String, Object> gateway = new LinkedHashMap<>();
        gateway.put("trustedProxies", h.trustedProxies().stream().map(Cidr::toString).toList());
        if (h.accessLog().enabled()) {
            gateway.put("accessLog", map("path", h.accessLog().path(), "format", h.accessLog().format().wireName(),
                    "maxFileSize", Durations.formatBytes(h.accessLog().maxFileBytes()), "maxFiles", h.accessLog().maxFiles()));
        }
        gateway.put("threads", h.threads());
        gateway.put("transport", h.transport().wireName());
        root.put("gateway", gateway);
        root.put("grm", map("host", c.grm().host(), "adminPort", c.grm().adminPort()));
        return root;
    }

    private static String str(java.nio.file.Path p) {
        return p == null ? null : p.toString();
    }

    private static void putIf(Map<String, Object> m, String k, Object v) {
        if (v != null) {
            m.put(k, v);
        }
    }

    private static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }
}
