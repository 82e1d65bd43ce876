package org.arbiter.dist;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.arbiter.bus.BusAcls;
import org.arbiter.common.config.ConfigException;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.dist.broker.BrokerSecurity;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code arbiter kafka}: a real single-node KRaft broker on 127.0.0.1. */
@Command(name = "kafka", mixinStandardHelpOptions = true, subcommands = {KafkaAclsCommand.class},
        description = {"Runs a single-node Kafka broker (KRaft, broker and controller in one process) on 127.0.0.1.",
                "Prints 'kafka ready on 127.0.0.1:PORT' when clients can connect; Ctrl-C or SIGTERM stops it cleanly.",
                "Restarted with the same --data, it keeps its topics and records.",
                "With --config and kafka.security in it, it starts secured: SASL_PLAINTEXT with SCRAM, the",
                "StandardAuthorizer, one user per role (passwords from their files), the ACLs of 'kafka acls'."})
final class KafkaCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--port", defaultValue = "9092", description = "Client port (default: ${DEFAULT-VALUE}; 0 = any free port).")
    int port;

    @Option(names = "--controller-port", defaultValue = "-1",
            description = "KRaft controller port (default: --port + 1; 0 = any free port).")
    int controllerPort;

    @Option(names = "--data", defaultValue = "arbiter-kafka-data", description = "Data directory (default: ${DEFAULT-VALUE}).")
    Path data;

    @Option(names = "--config", paramLabel = "FILE",
            description = "cluster.yaml: with kafka.security, start secured with its users, topics and ACLs.")
    Path config;

    @Override
    public Integer call() throws Exception {
        if (port < 0 || port > 65535) {
            throw new ArbiterCommand.UsageException("--port: " + port + " (expected: 0..65535)");
        }
        int controller = controllerPort == -1 ? (port == 0 ? 0 : port + 1) : controllerPort;
        if (controller < 0 || controller > 65535) {
            throw new ArbiterCommand.UsageException("--controller-port: " + controller + " (expected: 0..65535)");
        }
        KafkaConfig secured = null;
        EmbeddedKafka.Security security = null;
        if (config != null) {
            try {
                KafkaConfig k = ConfigLoader.load(config).kafka();
                if (k.security().enabled()) {
                    secured = k;
                    security = BrokerSecurity.of(k.security(), System::getenv);
                }
            } catch (ConfigException e) {
                e.errors().forEach(spec.commandLine().getErr()::println);
                return 2;
            } catch (IllegalArgumentException e) {
                throw new ArbiterCommand.UsageException(config + ": " + e.getMessage());
            }
        }
        EmbeddedKafka kafka;
        try {
            kafka = EmbeddedKafka.start(data, port, controller, security);
        } catch (IllegalStateException e) {
            // e.g. a data directory formatted unsecured, started secured (or the other way round)
            throw new ArbiterCommand.UsageException(e.getMessage());
        }
        String securedText = "";
        if (secured != null) {
            try {
                BusAcls.Applied applied = BusAcls.apply(kafka.superUserProperties(), secured.withBootstrap(kafka.bootstrap()));
                securedText = String.format(java.util.Locale.ROOT, "; secured: SASL_PLAINTEXT %s, users %s, super users %s, "
                        + "%d ACL bindings, topics created: %s", security.mechanism(),
                        security.users().keySet().stream().sorted().toList(), security.superUsers(), applied.bindings(),
                        applied.topicsCreated().isEmpty() ? "none" : applied.topicsCreated().size());
            } catch (RuntimeException e) {
                kafka.close();
                throw e;
            }
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            kafka.close();
            stopped.countDown();
        }, "kafka-shutdown"));
        spec.commandLine().getOut().println("kafka ready on " + kafka.bootstrap() + " (controller 127.0.0.1:"
                + kafka.controllerPort() + ", data " + data.toAbsolutePath() + securedText + ")");
        spec.commandLine().getOut().flush();
        stopped.await();
        return 0;
    }
}
