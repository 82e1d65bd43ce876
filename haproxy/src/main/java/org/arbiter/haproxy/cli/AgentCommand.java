package org.arbiter.haproxy.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigException;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.haproxy.HaproxyAgent;
import org.arbiter.haproxy.RuntimeApi;
import org.arbiter.runtime.cli.ConfigFileOption;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code arbiter agent}: agents that let the GRM drive a proxy it does not run itself. */
@Command(name = "agent", mixinStandardHelpOptions = true,
        description = "Runs an agent beside a proxy that serves as an Arbiter gateway.",
        subcommands = AgentCommand.Haproxy.class)
public final class AgentCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 2;
    }

    /** {@code arbiter agent haproxy}. */
    @Command(name = "haproxy", mixinStandardHelpOptions = true,
            description = {"Drives one HAProxy process (a gateway of kind: haproxy, configured by",
                    "`arbiter haproxy config`) through its Runtime API: publishes its statistics",
                    "as the gateway's, follows the GRM's allocations and sets each class backend's",
                    "per-server maxconn, weight and drain state. HAProxy keeps serving on the last",
                    "settings while the agent is away."})
    public static final class Haproxy implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Mixin
        ConfigFileOption config;

        @Option(names = "--gateway", required = true, paramLabel = "ID", description = "The gateway (gateways[].id, kind: haproxy).")
        String gateway;

        @Option(names = "--socket", required = true, paramLabel = "PATH|HOST:PORT",
                description = "HAProxy's Runtime API: the stats socket of level admin.")
        String socket;

        @Option(names = "--bootstrap", paramLabel = "HOST:PORT",
                description = "Kafka bootstrap servers (default: kafka.bootstrap in the file; none = the configured allocation).")
        String bootstrap;

        @Option(names = "--admin-port", paramLabel = "A", description = "Admin port (default: the gateway's adminPort).")
        Integer adminPort;

        @Option(names = "--sample", paramLabel = "SECONDS", defaultValue = "1",
                description = "How often HAProxy is read and brought to the allocation (default: ${DEFAULT-VALUE} s).")
        double sample;

        @Option(names = "--timeout", paramLabel = "MS", defaultValue = "2000",
                description = "Deadline of one Runtime API call (default: ${DEFAULT-VALUE} ms).")
        long timeoutMillis;

        @Override
        public Integer call() throws InterruptedException {
            PrintWriter err = spec.commandLine().getErr();
            String name = spec.qualifiedName();
            ClusterConfig cluster;
            try {
                cluster = ConfigLoader.load(config.file());
            } catch (ConfigException e) {
                e.errors().forEach(line -> err.println(name + ": " + line));
                err.flush();
                return 2;
            }
            if (timeoutMillis < 1 || timeoutMillis > 60_000) {
                err.println(name + ": --timeout: " + timeoutMillis + " (expected: 1..60000 ms)");
                return 2;
            }
            HaproxyAgent agent;
            try {
                agent = HaproxyAgent.start(cluster, gateway, RuntimeApi.of(socket, timeoutMillis),
                        new HaproxyAgent.Options(bootstrap, adminPort, sample));
            } catch (IllegalArgumentException | IllegalStateException e) {
                err.println(name + ": " + e.getMessage());
                err.flush();
                return 2;
            }
            CountDownLatch stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                agent.close(); // HAProxy keeps the settings last applied
                stopped.countDown();
            }, "agent-haproxy-shutdown"));
            PrintWriter out = spec.commandLine().getOut();
            out.println("agent haproxy " + gateway + " driving " + socket + " (admin port " + agent.adminPort() + ")");
            out.flush();
            stopped.await();
            return 0;
        }
    }
}
