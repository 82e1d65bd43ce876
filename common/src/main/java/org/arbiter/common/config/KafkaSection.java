package org.arbiter.common.config;

import static org.arbiter.common.config.ConfigKey.shaped;
import static org.arbiter.common.config.ConfigKey.string;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the {@code kafka} section of {@code cluster.yaml} for {@link ConfigLoader}: bootstrap,
 * topic prefix, client properties and {@code kafka.security} (see {@link KafkaSecurity}), every
 * problem recorded with its path. Password files are not read here: a process reads only its own
 * role's, when it connects.
 *
 * <p>Stateless and thread-safe.
 */
final class KafkaSection {

    private KafkaSection() {
    }

    /** Client properties that {@code kafka.security} sets; giving them in {@code kafka.properties} too is an error. */
    private static final List<String> SECURITY_PROPERTIES = List.of("security.protocol", "sasl.mechanism",
            "sasl.jaas.config", "ssl.truststore.location", "ssl.keystore.location");

    static final ConfigKey<KafkaConfig, String> BOOTSTRAP = string("bootstrap", KafkaConfig::bootstrap, null,
            "`host:port` of the brokers. Without one (and without `--bootstrap`), gateways run standalone on the "
                    + "configured weights; the GRM and console need one").docRule("`host:port`, comma-separated");
    static final ConfigKey<KafkaConfig, String> TOPIC_PREFIX = string("topicPrefix", KafkaConfig::topicPrefix, "arbiter.",
            "every topic is `<prefix>stats`, `allocation`, `power`, `overrides`, `decisions`, `grm-leader`");
    static final ConfigKey<KafkaConfig, Object> PROPERTIES = shaped("properties", "{}", "mapping of strings",
            "passed to every Kafka client (e.g. `ssl.enabled.protocols`, `client.dns.lookup`); with `security` set, the "
                    + "keys `security.protocol`, `sasl.mechanism`, `sasl.jaas.config`, `ssl.truststore.location` and "
                    + "`ssl.keystore.location` are an error (`security` sets them per role)");
    static final ConfigKey<KafkaConfig, Object> SECURITY = shaped("security",
            "absent: PLAINTEXT, every client is the broker's anonymous user", "see `kafka.security` below",
            "who each process is on a secured broker (below)");

    static final List<ConfigKey<KafkaConfig, ?>> KEYS = List.of(BOOTSTRAP, TOPIC_PREFIX, PROPERTIES, SECURITY);

    /** {@code kafka.security}: who each process is on a secured broker (the table under the kafka table). */
    static final ConfigKey<KafkaConfig, KafkaSecurity.Protocol> PROTOCOL = ConfigKey.choice("protocol",
            (KafkaConfig k) -> k.security().protocol(), KafkaSecurity.Protocol.class,
            KafkaSecurity.Protocol.SASL_PLAINTEXT, "with `PLAINTEXT` the block is ignored; `SSL` authenticates by TLS "
                    + "client certificates, with no password")
            .docDefault("`SASL_SSL` when `tls` is given, else `SASL_PLAINTEXT`");
    static final ConfigKey<KafkaConfig, KafkaSecurity.Mechanism> MECHANISM = ConfigKey.choice("mechanism",
            (KafkaConfig k) -> k.security().mechanism(), KafkaSecurity.Mechanism.class,
            KafkaSecurity.Mechanism.SCRAM_SHA_512, "the SASL mechanism (SASL protocols)");
    static final ConfigKey<KafkaConfig, Object> TRUSTSTORE = shaped("tls.truststore", "none: the JVM's trusted CAs",
            "`.pem`/`.crt`/`.cer` (PEM), `.jks` (JKS), `.p12`/`.pfx` (PKCS12); only with `SSL` or `SASL_SSL`",
            "the CAs that sign the brokers' certificates");
    static final ConfigKey<KafkaConfig, Object> TRUSTSTORE_PASSWORD_FILE = shaped("tls.truststorePasswordFile", "none",
            "required for a JKS or PKCS12 trust store", "the file holding the trust store's password");
    static final ConfigKey<KafkaConfig, Boolean> VERIFY_HOSTNAME = ConfigKey.bool("tls.verifyHostname",
            (KafkaConfig k) -> k.security().tls().verifyHostname(), true,
            "false sets `ssl.endpoint.identification.algorithm` empty (test clusters only)");
    static final ConfigKey<KafkaConfig, Object> PRINCIPALS = shaped("principals.grm`, `.gateway`, `.console",
            "required unless `PLAINTEXT`", "one per role; two roles may not share a user", "who each role connects as");
    static final ConfigKey<KafkaConfig, Object> PRINCIPAL_GATEWAYS = shaped("principals.gateways.<id>", "none",
            "a configured gateway's id; a user no role or other gateway has",
            "a gateway's own principal (same keys as a role's): it writes its statistics to `<prefix>stats.<id>`, which "
                    + "only it may write, and the GRM takes that gateway's statistics from there alone; gateways not "
                    + "listed connect as `principals.gateway` and share `<prefix>stats`");
    static final ConfigKey<KafkaConfig, Object> PRINCIPAL_ADMIN = shaped("principals.admin", "none", "",
            "used by `arbiter kafka acls --apply` and made a super user by `arbiter kafka --config`");
    static final ConfigKey<KafkaConfig, Object> USERNAME = shaped("principals.<role>.username", "— (required)",
            "SASL users: letters, digits, `.`, `_`, `@`, `=`, `-`",
            "the SASL user; for `SSL` the principal name the broker derives from the certificate (e.g. "
                    + "`CN=arbiter-grm`). ACLs name `User:<username>`");
    static final ConfigKey<KafkaConfig, Object> PASSWORD_FILE = shaped("principals.<role>.passwordFile",
            "none", "required for `SASL_*`; not allowed otherwise",
            "the file with the password; `ARBITER_KAFKA_<ROLE>_PASSWORD` wins");
    static final ConfigKey<KafkaConfig, Object> KEYSTORE = shaped("principals.<role>.keystore", "none",
            "required for `SSL`; optional for `SASL_SSL` (brokers that also ask for a client certificate)",
            "the role's certificate and key: PEM, JKS or PKCS12");
    static final ConfigKey<KafkaConfig, Object> KEYSTORE_PASSWORD_FILE = shaped("principals.<role>.keystorePasswordFile",
            "none", "required for a JKS or PKCS12 keystore", "the file holding the keystore's password");
    static final ConfigKey<KafkaConfig, Object> KEY_PASSWORD_FILE = shaped("principals.<role>.keyPasswordFile", "none",
            "", "the private key's password, if it has one");

    static final List<ConfigKey<KafkaConfig, ?>> SECURITY_KEYS = List.of(PROTOCOL, MECHANISM, TRUSTSTORE,
            TRUSTSTORE_PASSWORD_FILE, VERIFY_HOSTNAME, PRINCIPALS, PRINCIPAL_GATEWAYS, PRINCIPAL_ADMIN, USERNAME, PASSWORD_FILE, KEYSTORE,
            KEYSTORE_PASSWORD_FILE, KEY_PASSWORD_FILE);

    static KafkaConfig read(Node f) {
        String bootstrap = BOOTSTRAP.read(f);
        String prefix = TOPIC_PREFIX.read(f);
        Map<String, String> properties = f.stringMap("properties");
        KafkaSecurity security = KafkaSecurity.NONE;
        if (f.has("security")) {
            security = readSecurity(f.object("security"));
            if (security.enabled()) {
                for (String key : SECURITY_PROPERTIES) {
                    if (properties.containsKey(key)) {
                        f.error("properties." + key, properties.get(key)
                                + " (expected: not set when kafka.security is given; kafka.security sets it per role)");
                    }
                }
            }
        }
        f.finish();
        return new KafkaConfig(bootstrap, prefix, properties, security);
    }

    private static KafkaSecurity readSecurity(Node s) {
        Node tlsNode = s.object("tls");
        boolean tlsGiven = s.has("tls");
        KafkaSecurity.Protocol protocol = PROTOCOL.read(s,
                tlsGiven ? KafkaSecurity.Protocol.SASL_SSL : KafkaSecurity.Protocol.SASL_PLAINTEXT);
        KafkaSecurity.Mechanism mechanism = MECHANISM.read(s);
        boolean sasl = protocol.sasl();
        boolean tls = protocol.tls();
        Path truststore = path(tlsNode, "truststore");
        Path truststorePassword = path(tlsNode, "truststorePasswordFile");
        boolean verify = VERIFY_HOSTNAME.read(tlsNode);
        tlsNode.finish();
        if (tlsGiven && !tls) {
            s.error("tls", "given, but protocol is " + protocol + " (expected: protocol SSL or SASL_SSL when TLS files are given)");
        }
        storeChecks(tlsNode, "truststore", truststore, truststorePassword, "truststorePasswordFile");
        Map<KafkaSecurity.Role, KafkaSecurity.Principal> principals = new EnumMap<>(KafkaSecurity.Role.class);
        Node ps = s.object("principals");
        Map<String, String> userOf = new LinkedHashMap<>();
        for (KafkaSecurity.Role role : KafkaSecurity.Role.values()) {
            String key = role.key();
            if (!ps.has(key)) {
                if (role != KafkaSecurity.Role.ADMIN && protocol != KafkaSecurity.Protocol.PLAINTEXT) {
                    ps.error(key, "missing (expected: the user the " + key + " connects as; every role has its own so the "
                            + "broker's ACLs can tell them apart)");
                }
                continue;
            }
            Node p = ps.object(key);
            KafkaSecurity.Principal who = readPrincipal(p, protocol, role.passwordEnv(), "role", userOf, key);
            if (who != null) {
                principals.put(role, who);
            }
        }
        Map<String, KafkaSecurity.Principal> gatewayPrincipals = new LinkedHashMap<>();
        for (Map.Entry<String, Node> e : ps.objectMap("gateways").entrySet()) {
            String id = e.getKey();
            if (!id.matches("[A-Za-z0-9._-]+")) {
                ps.error("gateways." + id, "(expected: a gateway id of letters, digits, '.', '_' or '-', as in gateways[].id)");
                continue;
            }
            KafkaSecurity.Principal who = readPrincipal(e.getValue(), protocol, KafkaSecurity.Role.GATEWAY.passwordEnv(),
                    "gateway", userOf, "gateways." + id);
            if (who != null) {
                gatewayPrincipals.put(id, who);
            }
        }
        ps.finish();
        s.finish();
        if (protocol == KafkaSecurity.Protocol.PLAINTEXT) {
            return KafkaSecurity.NONE;
        }
        return new KafkaSecurity(protocol, mechanism,
                new KafkaSecurity.Tls(truststore, truststorePassword, verify), principals, gatewayPrincipals);
    }

    /** One principal's block (a role's or a gateway's), every problem recorded; null when its user is unusable. */
    private static KafkaSecurity.Principal readPrincipal(Node p, KafkaSecurity.Protocol protocol, String passwordEnv,
                                                         String kind, Map<String, String> userOf, String key) {
        boolean sasl = protocol.sasl();
        boolean tls = protocol.tls();
        String user = p.require("username") ? p.string("username", null) : null;
        if (user != null && (user.isBlank() || (sasl && !user.matches("[A-Za-z0-9._@=-]+")))) {
            p.error("username", user + " (expected: a user name of letters, digits, '.', '_', '@', '=' or '-')");
            user = null;
        }
        Path passwordFile = path(p, "passwordFile");
        Path keystore = path(p, "keystore");
        Path keystorePassword = path(p, "keystorePasswordFile");
        Path keyPassword = path(p, "keyPasswordFile");
        p.finish();
        if (sasl && passwordFile == null) {
            p.error("passwordFile", "missing (expected: a file holding this user's password; " + passwordEnv
                    + ", when set, is used instead)");
        }
        if (!sasl && passwordFile != null) {
            p.error("passwordFile", passwordFile + " (expected: none when protocol is " + protocol
                    + "; a password is for SASL_PLAINTEXT or SASL_SSL)");
        }
        if (protocol == KafkaSecurity.Protocol.SSL && keystore == null) {
            p.error("keystore", "missing (expected: this " + kind + "'s client certificate and key when protocol is SSL)");
        }
        if (!tls && keystore != null) {
            p.error("keystore", keystore + " (expected: none when protocol is " + protocol + ")");
        }
        storeChecks(p, "keystore", keystore, keystorePassword, "keystorePasswordFile");
        if (user == null) {
            return null;
        }
        String other = userOf.putIfAbsent(user, key);
        if (other != null) {
            p.error("username", user + " (expected: a user no other role or gateway has; " + other
                    + " has it, and the ACLs tell them apart by user)");
        }
        return new KafkaSecurity.Principal(user, passwordFile, keystore, keystorePassword, keyPassword);
    }

    private static void storeChecks(Node n, String key, Path store, Path passwordFile, String passwordKey) {
        if (store == null) {
            if (passwordFile != null) {
                n.error(passwordKey, passwordFile + " (expected: none without " + key + ")");
            }
            return;
        }
        String type = KafkaSecurity.storeType(store);
        if (type == null) {
            n.error(key, store + " (expected: a .pem, .crt, .jks, .p12 or .pfx file)");
        } else if (!"PEM".equals(type) && passwordFile == null) {
            n.error(passwordKey, "missing (expected: the password of the " + type + " " + key + ")");
        }
    }

    private static Path path(Node n, String key) {
        String v = n.string(key, null);
        if (v == null) {
            return null;
        }
        if (v.isBlank()) {
            n.error(key, "\"" + v + "\" (expected: a file path)");
            return null;
        }
        try {
            return Path.of(v);
        } catch (InvalidPathException e) {
            n.error(key, v + " (expected: a file path: " + e.getReason() + ")");
            return null;
        }
    }

    /** Across sections: every gateway under {@code kafka.security.principals.gateways} is a configured one. */
    static void across(KafkaConfig kafka, List<GatewayConfig> gateways, Node root) {
        List<String> ids = gateways.stream().map(GatewayConfig::id).toList();
        for (String id : kafka.security().gatewayPrincipals().keySet()) {
            if (!ids.contains(id)) {
                root.error("kafka.security.principals.gateways." + Node.shown(id), "not a configured gateway (expected: one of "
                        + String.join(", ", ids) + Node.suggestion(id, ids) + ")");
            }
        }
    }

    /** The tree: bootstrap (when given), prefix, properties and the security block (when enabled). */
    static Map<String, Object> write(KafkaConfig k) {
        Map<String, Object> kafka = Sections.write(k, KEYS);
        kafka.put("properties", k.properties());
        KafkaSecurity sec = k.security();
        if (sec.enabled()) {
            Map<String, Object> security = new LinkedHashMap<>();
            security.put("protocol", sec.protocol().wireName());
            security.put("mechanism", sec.mechanism().wireName());
            if (sec.tlsEnabled()) {
                Map<String, Object> tls = new LinkedHashMap<>();
                Sections.put(tls, "truststore", str(sec.tls().truststore()));
                Sections.put(tls, "truststorePasswordFile", str(sec.tls().truststorePasswordFile()));
                tls.put("verifyHostname", sec.tls().verifyHostname());
                security.put("tls", tls);
            }
            Map<String, Object> principals = new LinkedHashMap<>();
            for (KafkaSecurity.Role role : KafkaSecurity.Role.values()) {
                sec.principal(role).ifPresent(who -> principals.put(role.key(), principalTree(who)));
            }
            if (!sec.gatewayPrincipals().isEmpty()) {
                Map<String, Object> gateways = new LinkedHashMap<>();
                sec.gatewayPrincipals().forEach((id, who) -> gateways.put(id, principalTree(who)));
                principals.put("gateways", gateways);
            }
            security.put("principals", principals);
            kafka.put("security", security);
        }
        return kafka;
    }

    static void check(KafkaConfig k, String path, List<String> errors) {
        Sections.check(k, path, KEYS, errors);
    }

    private static Map<String, Object> principalTree(KafkaSecurity.Principal who) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("username", who.username());
        Sections.put(m, "passwordFile", str(who.passwordFile()));
        Sections.put(m, "keystore", str(who.keystore()));
        Sections.put(m, "keystorePasswordFile", str(who.keystorePasswordFile()));
        Sections.put(m, "keyPasswordFile", str(who.keyPasswordFile()));
        return m;
    }

    private static String str(Path p) {
        return p == null ? null : p.toString();
    }
}
