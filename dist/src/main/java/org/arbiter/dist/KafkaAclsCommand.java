package org.arbiter.dist;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.arbiter.bus.BusAcls;
import org.arbiter.bus.KafkaBus;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigException;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.KafkaSecurity;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code arbiter kafka acls}: the Kafka ACLs a {@code kafka.security} configuration implies
 * ({@link BusAcls}), printed as a table and as {@code kafka-acls.sh} commands, and with
 * {@code --apply} created (with any missing topic) through the Admin client.
 */
@Command(name = "acls", mixinStandardHelpOptions = true,
        description = {"Prints the Kafka ACLs that kafka.security in the configuration implies: only the GRM writes",
                "allocation, power and decisions; gateways write stats; the console writes overrides.",
                "With --apply, creates the missing topics and the ACLs on the cluster (as the admin principal of",
                "kafka.security.principals.admin, or as the client in --command-config)."})
final class KafkaAclsCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "cluster.yaml with kafka.security")
    Path config;

    @Option(names = "--format", defaultValue = "both", paramLabel = "FORMAT",
            description = "table, kafka-acls or both (default: ${DEFAULT-VALUE}).")
    String format;

    @Option(names = "--apply", description = "Create the topics and ACLs on the cluster.")
    boolean apply;

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT", description = "Kafka bootstrap servers for --apply (default: kafka.bootstrap in the file).")
    String bootstrap;

    @Option(names = "--command-config", paramLabel = "FILE",
            description = "Kafka client properties of an admin for --apply (default: the admin principal of kafka.security).")
    Path commandConfig;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!List.of("table", "kafka-acls", "both").contains(format)) {
            throw new ArbiterCommand.UsageException("--format: " + format + " (expected: table, kafka-acls or both)");
        }
        ClusterConfig cluster;
        try {
            cluster = ConfigLoader.load(config);
        } catch (ConfigException e) {
            e.errors().forEach(err::println);
            return 2;
        }
        KafkaConfig kafka = bootstrap != null ? cluster.kafka().withBootstrap(bootstrap) : cluster.kafka();
        List<BusAcls.Grant> grants;
        try {
            grants = BusAcls.grants(kafka);
        } catch (IllegalArgumentException e) {
            throw new ArbiterCommand.UsageException(config + ": " + e.getMessage());
        }
        int bindings = BusAcls.bindings(grants).size();
        if (!format.equals("kafka-acls")) {
            out.printf("# ACLs for %s (topic prefix %s): %d grants, %d bindings; anything else is denied%n",
                    config, kafka.topicPrefix(), grants.size(), bindings);
            out.print(BusAcls.table(grants));
        }
        if (!format.equals("table")) {
            if (format.equals("both")) {
                out.println();
            }
            out.println("# the same with Kafka's own tool (admin.properties: an admin's client login)");
            out.print(BusAcls.kafkaAclsCommands(grants));
        }
        out.flush();
        if (!apply) {
            return 0;
        }
        if (kafka.bootstrapServers().isEmpty()) {
            throw new ArbiterCommand.UsageException("--apply: no Kafka bootstrap (expected: --bootstrap HOST:PORT or "
                    + "kafka.bootstrap in " + config + ")");
        }
        Properties admin;
        if (commandConfig != null) {
            admin = new Properties();
            try (Reader r = Files.newBufferedReader(commandConfig)) {
                admin.load(r);
            } catch (IOException e) {
                throw new ArbiterCommand.UsageException("--command-config: " + commandConfig + ": cannot read ("
                        + e.getMessage() + ")");
            }
            admin.put("bootstrap.servers", kafka.bootstrap());
        } else {
            if (kafka.security().principal(KafkaSecurity.Role.ADMIN).isEmpty()) {
                throw new ArbiterCommand.UsageException("--apply: no admin (expected: kafka.security.principals.admin in "
                        + config + ", or --command-config FILE)");
            }
            try {
                admin = KafkaBus.clientProperties(kafka, KafkaSecurity.Role.ADMIN);
            } catch (IllegalArgumentException e) {
                throw new ArbiterCommand.UsageException(e.getMessage());
            }
        }
        admin.put("default.api.timeout.ms", "30000");
        try {
            BusAcls.Applied done = BusAcls.apply(admin, kafka);
            out.printf("applied on %s: %d ACL bindings; topics created: %s%n", kafka.bootstrap(), done.bindings(),
                    done.topicsCreated().isEmpty() ? "none (all existed)" : String.join(", ", done.topicsCreated()));
            out.flush();
            return 0;
        } catch (IllegalStateException e) {
            err.println("kafka acls: " + e.getMessage());
            return 1;
        }
    }
}
