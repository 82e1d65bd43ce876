package org.arbiter.common.config;

import static org.arbiter.common.config.ConfigKey.integer;
import static org.arbiter.common.config.ConfigKey.string;

import java.util.List;
import java.util.Map;

/**
 * The {@code grm} section, declared once: what every GRM process reads (its admin endpoint).
 *
 * <p>Stateless and thread-safe.
 */
final class GrmSection {

    private GrmSection() {
    }

    static final ConfigKey<GrmConfig, String> HOST = string("host", GrmConfig::host, "127.0.0.1",
            "where the admin endpoint listens").docDefault("127.0.0.1").docRule("an address to bind");
    static final ConfigKey<GrmConfig, Integer> ADMIN_PORT = integer("adminPort", GrmConfig::adminPort, 9190,
            v -> v >= 0 && v <= 65535, "0..65535",
            "`GET /metrics` (Prometheus text) and `GET /health`; `arbiter grm --admin-port` overrides it")
            .docRule("0..65535 (0 = any free port, printed at start)");

    static final List<ConfigKey<GrmConfig, ?>> KEYS = List.of(HOST, ADMIN_PORT);

    static GrmConfig read(Node gr) {
        String host = HOST.read(gr);
        if (host != null && host.isBlank()) {
            gr.error("host", "\"" + host + "\" (expected: an address to bind)");
            host = HOST.defaultValue();
        }
        int adminPort = ADMIN_PORT.read(gr);
        gr.finish();
        return new GrmConfig(host == null ? HOST.defaultValue() : host, adminPort);
    }

    static void check(GrmConfig g, String path, List<String> errors) {
        Sections.check(g, path, KEYS, errors);
        if (g.host() == null || g.host().isBlank()) {
            errors.add(Sections.path(path, "host") + ": \"" + g.host() + "\" (expected: an address to bind)");
        }
    }

    static Map<String, Object> write(GrmConfig g) {
        return Sections.write(g, KEYS);
    }
}
