package org.arbiter.common.config;

import static org.arbiter.common.config.ConfigKey.bool;
import static org.arbiter.common.config.ConfigKey.duration;
import static org.arbiter.common.config.ConfigKey.integer;
import static org.arbiter.common.config.ConfigKey.shaped;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code console} section, declared once: port, public reads, users, tokens and login throttling.
 *
 * <p>Stateless and thread-safe.
 */
final class ConsoleSection {

    private ConsoleSection() {
    }

    static final ConfigKey<ConsoleConfig, Integer> PORT = integer("port", ConsoleConfig::port, 8090,
            v -> v >= 0 && v <= 65535, "0..65535",
            "the page, the API and `GET /metrics` (Prometheus text, a read like the API)");
    static final ConfigKey<ConsoleConfig, Boolean> PUBLIC_READ = bool("publicRead", ConsoleConfig::publicRead, false,
            "reads without credentials (`/metrics` included; otherwise scrape with a viewer token)");
    static final ConfigKey<ConsoleConfig, Object> USERS = shaped("users[]", "none", "list",
            "`name`, `passwordHash` (`pbkdf2:<iterations>:<salt hex>:<hash hex>`), `role` (admin or viewer, default "
                    + "viewer)");
    static final ConfigKey<ConsoleConfig, Object> TOKENS = shaped("tokens[]", "none", "list",
            "`name`, `sha256` (64 hex digits: the SHA-256 of the bearer token), `role`");
    static final ConfigKey<ConsoleConfig, Object> TRUSTED_PROXIES = shaped("trustedProxies", "`[]`",
            "list of IPv4 / IPv6 addresses or CIDR blocks (`10.0.0.0/8`, `::1`); literals only",
            "reverse proxies in front of the console: from such a peer the client is the right-most address of "
                    + "`X-Forwarded-For` that is not a trusted proxy (the login throttle's client), and "
                    + "`X-Forwarded-Proto: https` makes the session cookie `Secure`; from any other peer both headers "
                    + "are ignored ([console](console.md#authentication), \"Behind a reverse proxy\")");
    static final ConfigKey<ConsoleConfig, Integer> FREE_FAILURES = integer("login.freeFailures",
            (ConsoleConfig c) -> c.login().freeFailures(), 3, v -> v >= 0 && v <= 1000, "0..1000",
            "failed logins of a user name from one client, or of a client, before any delay");
    static final ConfigKey<ConsoleConfig, Double> DELAY = duration("login.delay", (ConsoleConfig c) -> c.login().delaySeconds(), 1,
            v -> v > 0 && v <= 86400, "> 0 and <= 1d",
            "the wait after the first failure beyond the free ones; doubles with each further one");
    static final ConfigKey<ConsoleConfig, Double> MAX_DELAY = duration("login.maxDelay",
            (ConsoleConfig c) -> c.login().maxDelaySeconds(), 60, v -> v > 0 && v <= 86400, "> 0 and <= 1d", "the longest wait")
            .docDefault("60s (at least `delay`)").docRule("duration > 0 and ≤ 1d, ≥ `login.delay`");
    static final ConfigKey<ConsoleConfig, Integer> LOCKOUT_AFTER = integer("login.lockoutAfter",
            (ConsoleConfig c) -> c.login().lockoutAfter(), 10, v -> v >= 0 && v <= 1000, "0..1000 (0 = never)",
            "failures that lock the user (from that client) or the client out")
            .docDefault("10 (at least `freeFailures` + 1)").docRule("0..1000, 0 = never, else > `login.freeFailures`");
    static final ConfigKey<ConsoleConfig, Double> LOCKOUT = duration("login.lockout", (ConsoleConfig c) -> c.login().lockoutSeconds(),
            900, v -> v > 0 && v <= 7 * 86400, "> 0 and <= 7d", "how long a lockout lasts");
    static final ConfigKey<ConsoleConfig, Double> FORGET_AFTER = duration("login.forgetAfter",
            (ConsoleConfig c) -> c.login().forgetAfterSeconds(), 3600, v -> v > 0 && v <= 30 * 86400, "> 0 and <= 30d",
            "counts are forgotten this long after the last failure").docDefault("1h (at least `lockout`)");

    static final List<ConfigKey<ConsoleConfig, ?>> KEYS = List.of(PORT, PUBLIC_READ, USERS, TOKENS, TRUSTED_PROXIES, FREE_FAILURES,
            DELAY, MAX_DELAY, LOCKOUT_AFTER, LOCKOUT, FORGET_AFTER);

    static ConsoleConfig read(Node o) {
        int port = PORT.read(o);
        boolean publicRead = PUBLIC_READ.read(o);
        List<ConsoleConfig.User> users = new ArrayList<>();
        for (Node u : o.list("users")) {
            String name = u.require("name") ? u.string("name", null) : null;
            String hash = u.require("passwordHash") ? u.string("passwordHash", null) : null;
            if (hash != null && !hash.matches("pbkdf2:[0-9]+:[0-9a-fA-F]+:[0-9a-fA-F]+")) {
                u.error("passwordHash", "not a PBKDF2 hash (expected: pbkdf2:<iterations>:<salt hex>:<hash hex>, "
                        + "as printed by 'arbiter console hash-password')");
            }
            ConsoleConfig.Role role = u.choice("role", ConsoleConfig.Role.class, ConsoleConfig.Role.VIEWER);
            u.finish();
            users.add(new ConsoleConfig.User(name, hash, role));
        }
        List<ConsoleConfig.Token> tokens = new ArrayList<>();
        for (Node t : o.list("tokens")) {
            String name = t.require("name") ? t.string("name", null) : null;
            String sha = t.require("sha256") ? t.string("sha256", null) : null;
            if (sha != null && !sha.matches("[0-9a-fA-F]{64}")) {
                t.error("sha256", sha + " (expected: 64 hex digits, the SHA-256 of the token)");
            }
            ConsoleConfig.Role role = t.choice("role", ConsoleConfig.Role.class, ConsoleConfig.Role.VIEWER);
            t.finish();
            tokens.add(new ConsoleConfig.Token(name, sha, role));
        }
        ConsoleConfig.Login login = readLogin(o.object("login"));
        List<Cidr> trustedProxies = GatewayHttpSection.cidrs(o, "trustedProxies");
        o.finish();
        return new ConsoleConfig(port, publicRead, users, tokens, login, trustedProxies);
    }

    private static ConsoleConfig.Login readLogin(Node l) {
        int free = FREE_FAILURES.read(l);
        double delay = DELAY.read(l);
        double maxDelay = MAX_DELAY.read(l, Math.max(delay, MAX_DELAY.defaultValue()));
        int lockoutAfter = LOCKOUT_AFTER.read(l, Math.max(LOCKOUT_AFTER.defaultValue(), free + 1));
        double lockout = LOCKOUT.read(l);
        double forget = FORGET_AFTER.read(l, Math.max(lockout, FORGET_AFTER.defaultValue()));
        l.finish();
        List<String> errors = new ArrayList<>();
        loginAcross(maxDelay, delay, lockoutAfter, free, l.path(), errors);
        l.errors().addAll(errors);
        return errors.isEmpty() ? new ConsoleConfig.Login(free, delay, maxDelay, lockoutAfter, lockout, forget) : defaultLogin();
    }

    /** The login defaults, from the keys above. */
    static ConsoleConfig.Login defaultLogin() {
        return new ConsoleConfig.Login(FREE_FAILURES.defaultValue(), DELAY.defaultValue(), MAX_DELAY.defaultValue(),
                LOCKOUT_AFTER.defaultValue(), LOCKOUT.defaultValue(), FORGET_AFTER.defaultValue());
    }

    private static void loginAcross(double maxDelay, double delay, int lockoutAfter, int free, String path,
                                    List<String> errors) {
        if (maxDelay < delay) {
            errors.add(Sections.path(path, "maxDelay") + ": " + Durations.format(maxDelay)
                    + " (expected: >= console.login.delay, " + Durations.format(delay) + ")");
        }
        if (lockoutAfter != 0 && lockoutAfter <= free) {
            errors.add(Sections.path(path, "lockoutAfter") + ": " + lockoutAfter
                    + " (expected: 0 or > console.login.freeFailures, " + free + ")");
        }
    }

    static void check(ConsoleConfig c, String path, List<String> errors) {
        Sections.check(c, path, KEYS, errors);
        ConsoleConfig.Login l = c.login();
        loginAcross(l.maxDelaySeconds(), l.delaySeconds(), l.lockoutAfter(), l.freeFailures(),
                Sections.path(path, "login"), errors);
    }

    /** The tree with every user's hash and token's digest. */
    static Map<String, Object> write(ConsoleConfig c) {
        Map<String, Object> tree = Sections.write(c, KEYS);
        if (!c.trustedProxies().isEmpty()) {
            tree.put("trustedProxies", c.trustedProxies().stream().map(Cidr::toString).toList());
        }
        List<Object> users = new ArrayList<>();
        c.users().forEach(u -> users.add(entry("name", u.name(), "passwordHash", u.passwordHash(), "role", u.role().wireName())));
        List<Object> tokens = new ArrayList<>();
        c.tokens().forEach(t -> tokens.add(entry("name", t.name(), "sha256", t.sha256(), "role", t.role().wireName())));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("port", tree.get("port"));
        out.put("publicRead", tree.get("publicRead"));
        out.put("users", users);
        out.put("tokens", tokens);
        out.put("login", tree.get("login"));
        return out;
    }

    private static Map<String, Object> entry(String k1, Object v1, String k2, Object v2, String k3, Object v3) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(k1, v1);
        m.put(k2, v2);
        m.put(k3, v3);
        return m;
    }
}
