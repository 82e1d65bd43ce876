package org.arbiter.grm.cli;

import picocli.CommandLine.Mixin;
import org.arbiter.runtime.cli.BootstrapOption;
import org.arbiter.runtime.cli.ConfigFileOption;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigException;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.grm.service.GrmProcess;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code arbiter grm}: the global resource manager as its own process. */
@Command(name = "grm", mixinStandardHelpOptions = true,
        description = {"Runs a global resource manager: reads gateway statistics from Kafka and, while it leads,",
                "publishes allocations and decisions every control period. Run several for high availability."})
public final class GrmCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    ConfigFileOption config;

    @Mixin
    BootstrapOption bootstrap;

    @Option(names = "--id", paramLabel = "ID", description = "This GRM's id (default: grm-<pid>).")
    String id;

    @Option(names = "--admin-port", paramLabel = "PORT",
            description = "Port of GET /metrics and /health (default: grm.adminPort in the file, 9190; 0 = any free port).")
    Integer adminPort;

    @Override
    public Integer call() throws InterruptedException {
        ClusterConfig cluster;
        try {
            cluster = ConfigLoader.load(config.file());
        } catch (ConfigException e) {
            e.errors().forEach(spec.commandLine().getErr()::println);
            return 2;
        }
        var kafka = bootstrap.servers() != null ? cluster.kafka().withBootstrap(bootstrap.servers()) : cluster.kafka();
        if (kafka.bootstrapServers().isEmpty()) {
            spec.commandLine().getErr().println("grm: no Kafka bootstrap (expected: --bootstrap HOST:PORT or kafka.bootstrap in "
                    + config.file() + ")");
            return 2;
        }
        int port = adminPort != null ? adminPort : cluster.grm().adminPort();
        if (port < 0 || port > 65535) {
            spec.commandLine().getErr().println("grm: --admin-port " + port + " (expected: 0..65535)");
            return 2;
        }
        String grmId = id != null ? id : "grm-" + ProcessHandle.current().pid();
        GrmProcess grm;
        try {
            grm = GrmProcess.start(grmId, cluster, kafka, port);
        } catch (IllegalStateException e) { // the admin port is taken, Kafka cannot be reached
            spec.commandLine().getErr().println("grm: " + e.getMessage());
            return 1;
        } catch (IllegalArgumentException e) { // kafka.security: no principal, unreadable password file
            spec.commandLine().getErr().println("grm: " + e.getMessage());
            return 2;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            grm.close();
            stopped.countDown();
        }, "grm-shutdown"));
        spec.commandLine().getOut().println("grm " + grmId + " running (kafka " + kafka.bootstrap() + ", period "
                + cluster.control().periodSeconds() + " s, metrics " + grm.metricsUrl() + ")");
        spec.commandLine().getOut().flush();
        stopped.await();
        return 0;
    }
}
