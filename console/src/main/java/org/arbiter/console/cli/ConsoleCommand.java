package org.arbiter.console.cli;

import picocli.CommandLine.Mixin;
import org.arbiter.runtime.cli.BootstrapOption;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigException;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.console.server.Console;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code arbiter console}: the web console as its own process. */
@Command(name = "console", mixinStandardHelpOptions = true, subcommands = {HashPasswordCommand.class},
        description = {"Serves the web console: the cluster live (statistics, allocations, power, the GRM's decisions),",
                "the configuration, and the operator's overrides. Reads and writes the bus; binds 127.0.0.1."})
public final class ConsoleCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    // Not required = true: picocli would then demand it before the hash-password subcommand too.
    @Option(names = "--config", paramLabel = "FILE", description = "cluster.yaml (required)")
    Path config;

    @Mixin
    BootstrapOption bootstrap;

    @Option(names = "--port", paramLabel = "PORT", description = "HTTP port (default: console.port in the file, 8090).")
    Integer port;

    @Override
    public Integer call() throws InterruptedException {
        var err = spec.commandLine().getErr();
        if (config == null) {
            err.println("console: missing --config FILE (expected: the cluster.yaml to serve)");
            return 2;
        }
        ClusterConfig cluster;
        try {
            cluster = ConfigLoader.load(config);
        } catch (ConfigException e) {
            e.errors().forEach(err::println);
            return 2;
        }
        String kafka = bootstrap.servers() != null ? bootstrap.servers() : cluster.kafka().bootstrapServers().orElse(null);
        if (kafka == null || kafka.isBlank()) {
            err.println("console: no Kafka bootstrap (expected: --bootstrap HOST:PORT or kafka.bootstrap in " + config + ")");
            return 2;
        }
        int p = port != null ? port : cluster.console().port();
        if (p < 0 || p > 65535) {
            err.println("console: --port " + p + " (expected: 0..65535)");
            return 2;
        }
        Console console;
        try {
            console = Console.start(cluster, kafka, p);
        } catch (IllegalStateException e) {
            err.println("console: " + e.getMessage());
            return 1;
        } catch (IllegalArgumentException e) { // kafka.security: no principal, unreadable password file
            err.println("console: " + e.getMessage());
            return 2;
        }
        if (cluster.console().users().isEmpty() && cluster.console().tokens().isEmpty()) {
            err.println("console: no users or tokens in console: of " + config
                    + "; nobody can write (add one with 'arbiter console hash-password')");
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            console.close();
            stopped.countDown();
        }, "console-shutdown"));
        spec.commandLine().getOut().println("console ready on " + console.url());
        spec.commandLine().getOut().flush();
        stopped.await();
        return 0;
    }
}
