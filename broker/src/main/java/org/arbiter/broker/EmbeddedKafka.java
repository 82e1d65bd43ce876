package org.arbiter.broker;

import org.arbiter.runtime.net.Ports;
import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.io.IOException;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.arbiter.runtime.files.SecretFiles;

/**
 * A real single-node Kafka broker in KRaft mode (broker and controller in one process), run
 * in-process from the {@code kafka_2.13} jar: used by {@code arbiter kafka}, {@code arbiter demo}
 * and the integration tests. It listens on 127.0.0.1 only. Restarting on the same data directory
 * keeps the data (the directory is formatted only once).
 *
 * <p>Knows nothing of the cluster's configuration: {@code arbiter kafka} and the demo turn their
 * {@code kafka.security} into a {@link Security} ({@code dist}'s {@code BrokerSecurity}), so this
 * module needs {@code runtime} and Kafka only and builds beside {@code common}.
 * {@link #close()} is idempotent and thread-safe.
 */
public final class EmbeddedKafka implements AutoCloseable {

    /** The broker's own principal on a secured broker: inter-broker and controller traffic, a super user. */
    public static final String BROKER_USER = "arbiter-broker";

    /**
     * A secured broker: SASL_PLAINTEXT with SCRAM on the client listener, the StandardAuthorizer
     * (nothing is allowed without an ACL), SCRAM users created (or their passwords updated) at
     * every start.
     *
     * @param mechanism  {@code SCRAM-SHA-256} or {@code SCRAM-SHA-512}: the broker's own; clients may use either
     * @param users      user name to password; each gets SCRAM-SHA-256 and SCRAM-SHA-512 credentials
     * @param superUsers users the authorizer lets do anything (e.g. the admin); the broker's own is always one
     */
    public record Security(String mechanism, Map<String, String> users, Set<String> superUsers) {
        public Security {
            requireNonNull(mechanism, "mechanism");
            if (!mechanism.equals("SCRAM-SHA-256") && !mechanism.equals("SCRAM-SHA-512")) {
                throw new IllegalArgumentException("mechanism: " + mechanism + " (expected: SCRAM-SHA-256 or SCRAM-SHA-512)");
            }
            users = Map.copyOf(requireNonNull(users, "users"));
            superUsers = Set.copyOf(requireNonNull(superUsers, "superUsers"));
            for (String u : users.keySet()) {
                if (u.equals(BROKER_USER) || !u.matches("[A-Za-z0-9._@=-]+")) {
                    throw new IllegalArgumentException("users: " + u + " (expected: letters, digits, '.', '_', '@', '=' "
                            + "or '-', and not " + BROKER_USER + ")");
                }
            }
        }
    }

    private final KafkaRaftServer server;
    private final int port;
    private final int controllerPort;
    private final Path dataDir;
    private final Security security;
    private final String brokerPassword;
    private boolean closed;

    private EmbeddedKafka(KafkaRaftServer server, int port, int controllerPort, Path dataDir, Security security,
                          String brokerPassword) {
        this.server = server;
        this.port = port;
        this.controllerPort = controllerPort;
        this.dataDir = dataDir;
        this.security = security;
        this.brokerPassword = brokerPassword;
    }

    /** Starts a broker on a free port. */
    public static EmbeddedKafka start(Path dataDir) {
        return start(dataDir, 0, 0);
    }

    /** Starts a broker on {@code port} (0 = any free port). */
    public static EmbeddedKafka start(Path dataDir, int port) {
        return start(dataDir, port, 0);
    }

    /**
     * Starts a broker and returns once clients can connect.
     *
     * @param dataDir        log directory; formatted on first use, reused after
     * @param port           client port, 0 = any free port
     * @param controllerPort KRaft controller port, 0 = any free port
     */
    public static EmbeddedKafka start(Path dataDir, int port, int controllerPort) {
        return start(dataDir, port, controllerPort, null);
    }

    /**
     * Starts a broker, secured when {@code security} is not null (see {@link Security}), and
     * returns once clients can connect and every user can log in. A data directory first formatted
     * unsecured cannot be started secured (the broker's own SCRAM user is added at format time).
     *
     * @param dataDir        log directory; formatted on first use, reused after
     * @param port           client port, 0 = any free port
     * @param controllerPort KRaft controller port, 0 = any free port
     * @param security       users and super users, or null for a PLAINTEXT broker that allows everything
     */
    public static EmbeddedKafka start(Path dataDir, int port, int controllerPort, Security security) {
        requireNonNull(dataDir, "dataDir");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 0..65535)");
        }
        int p = port == 0 ? Ports.free() : port;
        int c = controllerPort == 0 ? Ports.free() : controllerPort;
        try {
            Files.createDirectories(dataDir);
            Path logs = dataDir.toAbsolutePath().resolve("logs");
            Properties props = new Properties();
            props.put("process.roles", "broker,controller");
            props.put("node.id", "1");
            props.put("controller.quorum.voters", "1@127.0.0.1:" + c);
            props.put("controller.listener.names", "CONTROLLER");
            String brokerPassword = null;
            List<String> formatArgs = new ArrayList<>();
            if (security == null) {
                if (Files.exists(dataDir.resolve("broker.password"))) {
                    throw new IllegalStateException(dataDir + ": formatted for a secured broker (expected: start it "
                            + "secured, or use a new data directory)");
                }
                props.put("listeners", "PLAINTEXT://127.0.0.1:" + p + ",CONTROLLER://127.0.0.1:" + c);
                props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + p);
                props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
                props.put("inter.broker.listener.name", "PLAINTEXT");
            } else {
                brokerPassword = brokerPassword(dataDir);
                secure(props, p, c, security, brokerPassword);
                // KRaft keeps SCRAM credentials in the metadata log: the broker's own is added at format time.
                formatArgs.add("--add-scram");
                formatArgs.add(security.mechanism() + "=[name=" + BROKER_USER + ",password=" + brokerPassword + "]");
            }
            props.put("log.dirs", logs.toString());
            props.put("offsets.topic.replication.factor", "1");
            props.put("offsets.topic.num.partitions", "3");
            props.put("transaction.state.log.replication.factor", "1");
            props.put("transaction.state.log.min.isr", "1");
            props.put("share.coordinator.state.topic.replication.factor", "1");
            props.put("share.coordinator.state.topic.min.isr", "1");
            props.put("group.initial.rebalance.delay.ms", "0");
            props.put("num.partitions", "1");
            props.put("auto.create.topics.enable", "true");
            props.put("log.cleaner.backoff.ms", "1000");
            if (!Files.exists(logs.resolve("meta.properties"))) {
                Path propsFile = dataDir.resolve("server.properties");
                ByteArrayOutputStream text = new ByteArrayOutputStream();
                props.store(text, "arbiter embedded kafka");
                SecretFiles.writeOwnerOnly(propsFile, text.toByteArray()); // a secured broker's holds its password
                ByteArrayOutputStream buffer = new ByteArrayOutputStream();
                int rc;
                try (PrintStream ps = new PrintStream(buffer, true, StandardCharsets.UTF_8)) {
                    List<String> args = new ArrayList<>(List.of("format", "-t", Uuid.randomUuid().toString(),
                            "-c", propsFile.toString()));
                    args.addAll(formatArgs);
                    rc = StorageTool.execute(args.toArray(String[]::new), ps);
                }
                if (security != null) {
                    Files.deleteIfExists(propsFile); // it holds the broker's password
                }
                if (rc != 0) {
                    throw new IllegalStateException("kafka storage format failed: " + buffer.toString(StandardCharsets.UTF_8));
                }
            }
            KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(props, false), Time.SYSTEM);
            server.startup();
            EmbeddedKafka kafka = new EmbeddedKafka(server, p, c, dataDir, security, brokerPassword);
            if (security != null) {
                try {
                    kafka.upsertUsers();
                } catch (RuntimeException e) {
                    kafka.close();
                    throw e;
                }
            }
            return kafka;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + dataDir, e);
        }
    }

    private static void secure(Properties props, int p, int c, Security security, String brokerPassword) {
        String mech = security.mechanism();
        props.put("listeners", "CLIENT://127.0.0.1:" + p + ",CONTROLLER://127.0.0.1:" + c);
        props.put("advertised.listeners", "CLIENT://127.0.0.1:" + p);
        props.put("listener.security.protocol.map", "CLIENT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT");
        props.put("inter.broker.listener.name", "CLIENT");
        props.put("sasl.mechanism.inter.broker.protocol", mech);
        props.put("listener.name.client.sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512");
        String scram = "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + BROKER_USER
                + "\" password=\"" + brokerPassword + "\";";
        props.put("listener.name.client.scram-sha-256.sasl.jaas.config", scram);
        props.put("listener.name.client.scram-sha-512.sasl.jaas.config", scram);
        // SCRAM credentials live in the metadata the controller serves, so the controller listener
        // cannot use SCRAM: it uses PLAIN with the broker's own user only.
        props.put("sasl.mechanism.controller.protocol", "PLAIN");
        props.put("listener.name.controller.sasl.enabled.mechanisms", "PLAIN");
        props.put("listener.name.controller.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + BROKER_USER
                        + "\" password=\"" + brokerPassword + "\" user_" + BROKER_USER + "=\"" + brokerPassword + "\";");
        props.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        props.put("allow.everyone.if.no.acl.found", "false");
        List<String> supers = new ArrayList<>();
        supers.add("User:" + BROKER_USER);
        security.superUsers().stream().sorted().forEach(u -> supers.add("User:" + u));
        props.put("super.users", String.join(";", supers));
    }

    /** The broker's own password: made once per data directory (owner-only file), reused after. */
    private static String brokerPassword(Path dataDir) throws IOException {
        Path file = dataDir.resolve("broker.password");
        if (Files.exists(file)) {
            return Files.readString(file, StandardCharsets.UTF_8).trim();
        }
        if (Files.exists(dataDir.resolve("logs").resolve("meta.properties"))) {
            throw new IllegalStateException(dataDir + ": formatted for an unsecured broker (expected: a new data "
                    + "directory to start a secured one)");
        }
        byte[] seed = new byte[18];
        new SecureRandom().nextBytes(seed);
        String password = HexFormat.of().formatHex(seed);
        SecretFiles.writeOwnerOnly(file, password);
        return password;
    }

    /** Creates every user of {@link Security#users()} (both SCRAM mechanisms), or updates its password. */
    private void upsertUsers() {
        if (security.users().isEmpty()) {
            return;
        }
        try (Admin admin = Admin.create(superUserProperties())) {
            // one request per mechanism: a request may alter each user only once
            for (ScramMechanism m : List.of(ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512)) {
                List<UserScramCredentialAlteration> changes = new ArrayList<>();
                for (Map.Entry<String, String> u : security.users().entrySet()) {
                    changes.add(new UserScramCredentialUpsertion(u.getKey(), new ScramCredentialInfo(m, 8192), u.getValue()));
                }
                admin.alterUserScramCredentials(changes).all().get(30, TimeUnit.SECONDS);
            }
            // A user can log in once the broker has the credential from the metadata log.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                var described = admin.describeUserScramCredentials(List.copyOf(security.users().keySet())).all()
                        .get(30, TimeUnit.SECONDS);
                if (described.keySet().containsAll(security.users().keySet())) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("SCRAM users not visible within 30 s: " + security.users().keySet());
                }
                Thread.sleep(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating SCRAM users", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create SCRAM users: " + (e.getCause() == null ? e : e.getCause()), e);
        }
    }

    /** True when this broker was started with {@link Security}. */
    public boolean secured() {
        return security != null;
    }

    /**
     * Client properties of the broker's own super user (bootstrap included): for setting up users,
     * topics and ACLs. On an unsecured broker, just the bootstrap.
     */
    public Properties superUserProperties() {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap());
        if (security != null) {
            p.put("security.protocol", "SASL_PLAINTEXT");
            p.put("sasl.mechanism", security.mechanism());
            p.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                    + BROKER_USER + "\" password=\"" + brokerPassword + "\";");
        }
        return p;
    }

    /** {@code 127.0.0.1:PORT}, for {@code bootstrap.servers}. */
    public String bootstrap() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    public int controllerPort() {
        return controllerPort;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** Stops the broker and waits until it has stopped. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        server.shutdown();
        server.awaitShutdown();
    }
}
