package org.arbiter.common.kafka;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * A real single-node Kafka broker in KRaft mode (broker and controller in one process), run
 * in-process from the {@code kafka_2.13} jar: used by {@code arbiter kafka}, {@code arbiter demo}
 * and the integration tests. It listens on 127.0.0.1 only. Restarting on the same data directory
 * keeps the data (the directory is formatted only once).
 *
 * <p>Needs {@code org.apache.kafka:kafka_2.13} on the class path (an optional dependency of
 * common: dist has it, other modules have it in test scope). {@link #close()} is idempotent and
 * thread-safe.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private final KafkaRaftServer server;
    private final int port;
    private final int controllerPort;
    private final Path dataDir;
    private boolean closed;

    private EmbeddedKafka(KafkaRaftServer server, int port, int controllerPort, Path dataDir) {
        this.server = server;
        this.port = port;
        this.controllerPort = controllerPort;
        this.dataDir = dataDir;
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
        requireNonNull(dataDir, "dataDir");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 0..65535)");
        }
        int p = port == 0 ? freePort() : port;
        int c = controllerPort == 0 ? freePort(p) : controllerPort;
        try {
            Files.createDirectories(dataDir);
            Path logs = dataDir.toAbsolutePath().resolve("logs");
            Properties props = new Properties();
            props.put("process.roles", "broker,controller");
            props.put("node.id", "1");
            props.put("controller.quorum.voters", "1@127.0.0.1:" + c);
            props.put("listeners", "PLAINTEXT://127.0.0.1:" + p + ",CONTROLLER://127.0.0.1:" + c);
            props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + p);
            props.put("controller.listener.names", "CONTROLLER");
            props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            props.put("inter.broker.listener.name", "PLAINTEXT");
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
                try (OutputStream out = Files.newOutputStream(propsFile)) {
                    props.store(out, "arbiter embedded kafka");
                }
                ByteArrayOutputStream buffer = new ByteArrayOutputStream();
                int rc;
                try (PrintStream ps = new PrintStream(buffer, true, StandardCharsets.UTF_8)) {
                    rc = StorageTool.execute(new String[] {"format", "-t", Uuid.randomUuid().toString(),
                            "-c", propsFile.toString()}, ps);
                }
                if (rc != 0) {
                    throw new IllegalStateException("kafka storage format failed: " + buffer.toString(StandardCharsets.UTF_8));
                }
            }
            KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(props, false), Time.SYSTEM);
            server.startup();
            return new EmbeddedKafka(server, p, c, dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + dataDir, e);
        }
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

    private static int freePort(int... avoid) {
        for (int attempt = 0; attempt < 20; attempt++) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                int candidate = s.getLocalPort();
                boolean clash = false;
                for (int a : avoid) {
                    clash |= a == candidate;
                }
                if (!clash) {
                    return candidate;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("no free port on 127.0.0.1", e);
            }
        }
        throw new IllegalStateException("no free port on 127.0.0.1");
    }
}
