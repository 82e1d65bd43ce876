package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonValue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * {@code kafka.security}: how each Arbiter process authenticates to Kafka, and as whom.
 *
 * <p>Design: every role (the GRM, the gateways, the console, and an optional admin that sets up
 * ACLs and topics) connects as its own principal, so the broker's ACLs can say that only the GRM
 * writes allocations and power orders. Passwords are never inline: each principal names a file
 * holding its password (first line, trimmed), and the environment variable
 * {@code ARBITER_KAFKA_<ROLE>_PASSWORD} (e.g. {@code ARBITER_KAFKA_GRM_PASSWORD}), when set, is used
 * instead. Files are read only when the role connects ({@link #clientProperties}), so a host holds
 * only its own role's password. SASL/SCRAM ({@code SCRAM-SHA-256} or {@code SCRAM-SHA-512}) over
 * plaintext or TLS, or TLS client certificates ({@code SSL}); TLS stores may be PEM, JKS or PKCS12
 * files, the type taken from the file name.
 *
 * <p>Gateways of their own: a gateway listed under {@code principals.gateways} connects as its own
 * principal and writes its statistics to a topic of its own, {@code <prefix>stats.<id>}, which the
 * ACLs let only that principal write ({@code BusAcls}); Kafka's ACLs cannot restrict a record's
 * key, so a topic per gateway is how the broker itself keeps one gateway from reporting in
 * another's name. The GRM takes a listed gateway's statistics from its own topic only, and only
 * records that name it. Gateways not listed share the {@code gateway} role and the shared topic.
 *
 * <p>Immutable and thread-safe; {@link #NONE} is the unsecured default.
 *
 * @param protocol          PLAINTEXT, SASL_PLAINTEXT, SASL_SSL or SSL
 * @param mechanism         SCRAM-SHA-256 or SCRAM-SHA-512 (used by the SASL protocols)
 * @param tls               the trust store and hostname checking (used by SSL and SASL_SSL)
 * @param principals        who each role is; empty for PLAINTEXT
 * @param gatewayPrincipals gateways with a principal (and a statistics topic) of their own, by gateway id
 */
public record KafkaSecurity(Protocol protocol, Mechanism mechanism, Tls tls, Map<Role, Principal> principals,
                            Map<String, Principal> gatewayPrincipals) {

    /** Every gateway as the one {@code gateway} role. */
    public KafkaSecurity(Protocol protocol, Mechanism mechanism, Tls tls, Map<Role, Principal> principals) {
        this(protocol, mechanism, tls, principals, Map.of());
    }

    /** {@code kafka.security.protocol}: Kafka's {@code security.protocol}, written as Kafka writes it. */
    public enum Protocol implements Choice {
        PLAINTEXT, SASL_PLAINTEXT, SASL_SSL, SSL;

        @JsonValue
        @Override
        public String wireName() {
            return name();
        }

        /** SASL_PLAINTEXT or SASL_SSL: a password per role. */
        public boolean sasl() {
            return this == SASL_PLAINTEXT || this == SASL_SSL;
        }

        /** SSL or SASL_SSL: TLS to the broker. */
        public boolean tls() {
            return this == SSL || this == SASL_SSL;
        }

        @Override
        public String toString() {
            return name();
        }
    }

    /** {@code kafka.security.mechanism}: the SASL mechanism, written as Kafka writes it. */
    public enum Mechanism implements Choice {
        SCRAM_SHA_256("SCRAM-SHA-256"), SCRAM_SHA_512("SCRAM-SHA-512");

        private final String wireName;

        Mechanism(String wireName) {
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

    /** No authentication: every process is the broker's ANONYMOUS user. */
    public static final KafkaSecurity NONE = new KafkaSecurity(Protocol.PLAINTEXT, Mechanism.SCRAM_SHA_512, Tls.NONE, Map.of());

    /** The processes that talk to Kafka, each as its own principal. */
    public enum Role {
        /** Writes allocations, power orders and decisions; creates the topics. */
        GRM,
        /** Writes statistics; reads its allocation. */
        GATEWAY,
        /** Writes overrides; reads everything. */
        CONSOLE,
        /** Applies ACLs and creates topics ({@code arbiter kafka acls --apply}); a super user on the embedded broker. */
        ADMIN;

        /** The key under {@code kafka.security.principals}. */
        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The environment variable whose value, when set, replaces the password file. */
        public String passwordEnv() {
            return "ARBITER_KAFKA_" + name() + "_PASSWORD";
        }
    }

    /**
     * One role's identity.
     *
     * @param username             the SASL user, or for {@code SSL} the principal name the broker derives from the
     *                             certificate (e.g. {@code CN=arbiter-grm}); ACLs name {@code User:<username>}
     * @param passwordFile         file holding the SASL password (SASL protocols)
     * @param keystore             this role's client certificate and key (PEM, JKS or PKCS12), or null
     * @param keystorePasswordFile password of a JKS/PKCS12 keystore, or null
     * @param keyPasswordFile      password of the private key, or null
     */
    public record Principal(String username, Path passwordFile, Path keystore, Path keystorePasswordFile,
                            Path keyPasswordFile) {
        public Principal {
            requireNonNull(username, "username");
            if (username.isBlank()) {
                throw new IllegalArgumentException("username: blank (expected: a user name)");
            }
        }

        /** The ACL principal, {@code User:<username>}. */
        public String aclPrincipal() {
            return "User:" + username;
        }
    }

    /**
     * TLS settings shared by every role.
     *
     * @param truststore             CA certificates to trust (PEM, JKS or PKCS12), or null for the JVM's
     * @param truststorePasswordFile password of a JKS/PKCS12 trust store, or null
     * @param verifyHostname         check the broker's certificate against its host name (default true)
     */
    public record Tls(Path truststore, Path truststorePasswordFile, boolean verifyHostname) {
        public static final Tls NONE = new Tls(null, null, true);
    }

    public KafkaSecurity {
        requireNonNull(protocol, "protocol");
        requireNonNull(mechanism, "mechanism");
        requireNonNull(tls, "tls");
        requireNonNull(principals, "principals");
        principals = principals.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(principals));
        requireNonNull(gatewayPrincipals, "gatewayPrincipals");
        gatewayPrincipals = Collections.unmodifiableMap(new TreeMap<>(gatewayPrincipals));
    }

    /** Whether gateway {@code id} has a principal and a statistics topic of its own (secured installations only). */
    public boolean ownStats(String gatewayId) {
        return enabled() && gatewayPrincipals.containsKey(gatewayId);
    }

    /** The principal gateway {@code id} connects as: its own, or the {@code gateway} role's. */
    public Optional<Principal> gatewayPrincipal(String gatewayId) {
        Principal own = gatewayPrincipals.get(gatewayId);
        return own != null ? Optional.of(own) : principal(Role.GATEWAY);
    }

    /** True unless the protocol is PLAINTEXT: each process then connects as its own principal. */
    public boolean enabled() {
        return protocol != Protocol.PLAINTEXT;
    }

    public boolean sasl() {
        return protocol.sasl();
    }

    public boolean tlsEnabled() {
        return protocol.tls();
    }

    public Optional<Principal> principal(Role role) {
        return Optional.ofNullable(principals.get(role));
    }

    /**
     * The Kafka client properties for {@code role}: protocol, SASL login with the role's password,
     * TLS stores. Reads the password files now.
     *
     * @param env the environment ({@code System::getenv}); its {@code ARBITER_KAFKA_<ROLE>_PASSWORD} wins over files
     * @throws IllegalArgumentException naming the configuration path when the role has no principal
     *                                  or a password cannot be read
     */
    public Map<String, String> clientProperties(Role role, UnaryOperator<String> env) {
        return clientProperties(role, null, env);
    }

    /**
     * As {@link #clientProperties(Role, UnaryOperator)}; for {@link Role#GATEWAY} with
     * {@code gatewayId} listed under {@code principals.gateways}, as that gateway's own principal.
     */
    public Map<String, String> clientProperties(Role role, String gatewayId, UnaryOperator<String> env) {
        requireNonNull(role, "role");
        requireNonNull(env, "env");
        Map<String, String> p = new LinkedHashMap<>();
        if (!enabled()) {
            return p;
        }
        boolean own = role == Role.GATEWAY && gatewayId != null && gatewayPrincipals.containsKey(gatewayId);
        String at = own ? "kafka.security.principals.gateways." + gatewayId : "kafka.security.principals." + role.key();
        Principal who = own ? gatewayPrincipals.get(gatewayId) : principal(role).orElseThrow(() -> new IllegalArgumentException(at
                + ": missing (expected: the user this " + role.key() + " connects as, since kafka.security.protocol is "
                + protocol + ")"));
        p.put("security.protocol", protocol.wireName());
        if (sasl()) {
            p.put("sasl.mechanism", mechanism.wireName());
            p.put("sasl.jaas.config", jaas(who.username(), own ? password(who, at, role, env) : password(role, env)));
        }
        if (tlsEnabled()) {
            if (tls.truststore() != null) {
                p.put("ssl.truststore.location", tls.truststore().toString());
                String type = storeType(tls.truststore());
                p.put("ssl.truststore.type", type);
                if (tls.truststorePasswordFile() != null) {
                    p.put("ssl.truststore.password", readSecret(tls.truststorePasswordFile(),
                            "kafka.security.tls.truststorePasswordFile", null));
                }
            }
            if (!tls.verifyHostname()) {
                p.put("ssl.endpoint.identification.algorithm", "");
            }
            if (who.keystore() != null) {
                p.put("ssl.keystore.location", who.keystore().toString());
                p.put("ssl.keystore.type", storeType(who.keystore()));
                if (who.keystorePasswordFile() != null) {
                    p.put("ssl.keystore.password", readSecret(who.keystorePasswordFile(), at + ".keystorePasswordFile", null));
                }
                if (who.keyPasswordFile() != null) {
                    p.put("ssl.key.password", readSecret(who.keyPasswordFile(), at + ".keyPasswordFile", null));
                }
            }
        }
        return p;
    }

    /**
     * The SASL password of {@code role}: {@code ARBITER_KAFKA_<ROLE>_PASSWORD} when set and not
     * empty, else the first line of its password file.
     *
     * @throws IllegalArgumentException naming the configuration path when there is no such role or no password
     */
    public String password(Role role, UnaryOperator<String> env) {
        String at = "kafka.security.principals." + role.key();
        Principal who = principal(role).orElseThrow(() -> new IllegalArgumentException(at
                + ": missing (expected: the user this " + role.key() + " connects as)"));
        return password(who, at, role, env);
    }

    /**
     * The SASL password of gateway {@code gatewayId}'s own principal, from its password file (for
     * whoever sets up the broker's users; the gateway itself also honours
     * {@code ARBITER_KAFKA_GATEWAY_PASSWORD}).
     *
     * @throws IllegalArgumentException naming the configuration path when the gateway has no principal of its own
     *                                  or no readable password
     */
    public String gatewayPassword(String gatewayId) {
        String at = "kafka.security.principals.gateways." + gatewayId;
        Principal who = gatewayPrincipals.get(gatewayId);
        if (who == null) {
            throw new IllegalArgumentException(at + ": missing (expected: a gateway with a principal of its own)");
        }
        return readSecret(who.passwordFile(), at + ".passwordFile", null);
    }

    private static String password(Principal who, String at, Role role, UnaryOperator<String> env) {
        String fromEnv = env.apply(role.passwordEnv());
        if (fromEnv != null && !fromEnv.isEmpty()) {
            return fromEnv;
        }
        return readSecret(who.passwordFile(), at + ".passwordFile", role.passwordEnv());
    }

    /** The SCRAM login line for one user (quotes and backslashes escaped). */
    public static String jaas(String username, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + escape(username)
                + "\" password=\"" + escape(password) + "\";";
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    /** PEM for {@code .pem}/{@code .crt}/{@code .cer}, JKS for {@code .jks}, PKCS12 for {@code .p12}/{@code .pfx}; null otherwise. */
    public static String storeType(Path file) {
        String name = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".pem") || name.endsWith(".crt") || name.endsWith(".cer")) {
            return "PEM";
        }
        if (name.endsWith(".jks")) {
            return "JKS";
        }
        if (name.endsWith(".p12") || name.endsWith(".pfx")) {
            return "PKCS12";
        }
        return null;
    }

    /** The first line of {@code file}, trimmed; errors name the configuration path. */
    public static String readSecret(Path file, String path, String envName) {
        String or = envName == null ? "" : ", or set " + envName;
        if (file == null) {
            throw new IllegalArgumentException(path + ": missing (expected: a file holding the password" + or + ")");
        }
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(path + ": " + file + ": no such file (expected: a readable file holding the password" + or + ")");
        } catch (IOException e) {
            throw new IllegalArgumentException(path + ": " + file + ": cannot read (" + e.getMessage() + ")");
        }
        String line = text.lines().findFirst().orElse("").trim();
        if (line.isEmpty()) {
            throw new IllegalArgumentException(path + ": " + file + ": empty (expected: the password on the first line)");
        }
        return line;
    }
}
