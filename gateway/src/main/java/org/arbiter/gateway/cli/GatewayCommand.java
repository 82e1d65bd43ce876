package org.arbiter.gateway.cli;

import java.util.concurrent.CompletionException;
import picocli.CommandLine.Mixin;
import org.arbiter.runtime.cli.ConfigFileOption;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigException;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.DrainReport;
import org.arbiter.gateway.server.Gateway;
import org.arbiter.gateway.server.GatewayOptions;
import org.arbiter.gateway.server.StopCause;
import org.arbiter.runtime.netty.NettyDefaults;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code arbiter gateway}: one gateway as its own process. */
@Command(name = "gateway", mixinStandardHelpOptions = true,
        description = {"Runs a gateway: classifies requests, queues them per class, releases them by weighted",
                "round-robin over w(g,c) to servers under the caps N(g,s). With a Kafka bootstrap it publishes",
                "statistics and follows the GRM's allocations; without one it runs on the configured weights."})
public final class GatewayCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    ConfigFileOption config;

    @Option(names = "--id", required = true, paramLabel = "ID", description = "This gateway's id in the file (gateways[].id).")
    String id;

    @Option(names = "--port", paramLabel = "P", description = "Request port (default: gateways[].port; 0 = any free port).")
    Integer port;

    @Option(names = "--admin-port", paramLabel = "A", description = "Admin port (default: gateways[].adminPort).")
    Integer adminPort;

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT",
            description = "Kafka bootstrap servers (default: kafka.bootstrap in the file; none = standalone).")
    String bootstrap;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter err = spec.commandLine().getErr();
        if (port != null && (port < 0 || port > 65535)) {
            err.println("gateway: --port: " + port + " (expected: 0..65535)");
            return 2;
        }
        if (adminPort != null && (adminPort < 0 || adminPort > 65535)) {
            err.println("gateway: --admin-port: " + adminPort + " (expected: 0..65535)");
            return 2;
        }
        ClusterConfig cluster;
        try {
            cluster = ConfigLoader.load(config.file());
        } catch (ConfigException e) {
            e.errors().forEach(line -> err.println("gateway: " + line));
            return 2;
        }
        Gateway gateway;
        try {
            gateway = Gateway.start(cluster, id, new GatewayOptions(port, adminPort, bootstrap, true, null));
        } catch (IllegalArgumentException e) {
            err.println("gateway: " + e.getMessage());
            return 2;
        } catch (Exception e) {
            err.println("gateway: cannot start: " + e);
            return 1;
        }
        // SIGTERM (and SIGINT) start a graceful drain; the process exits 0 once it is done. Without
        // the signal API, a shutdown hook drains instead (the exit status is then the signal's).
        // A drain asked for over the admin port exits 75 (restart) or, with final=true, 0 (StopCause).
        boolean handled = onSignals(() -> {
            if (!gateway.drain()) {
                err.println("gateway: already draining; a second signal is ignored (SIGKILL stops at once)");
                err.flush();
            }
        }, "TERM", "INT");
        // SIGHUP reloads the file (as POST /reload does): what can change live is applied, the rest is logged
        gateway.reloadFrom(config.file());
        boolean reloadsOnHup = onSignals(() -> gateway.reloadFile().whenComplete((r, e) -> {
            if (e != null) {
                Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                if (cause instanceof ConfigException ce) {
                    ce.errors().forEach(line -> LoggerFactory.getLogger(GatewayCommand.class)
                            .warn("gateway {}: SIGHUP: the file is not valid, nothing applied: {}", id, line));
                } else {
                    LoggerFactory.getLogger(GatewayCommand.class).warn("gateway {}: SIGHUP: reload failed: {}", id,
                            cause.getMessage());
                }
            }
        }), "HUP");
        if (!reloadsOnHup) {
            // e.g. started under nohup: the JVM leaves an ignored SIGHUP ignored
            LoggerFactory.getLogger(GatewayCommand.class).warn("gateway {}: SIGHUP is ignored by this process (started "
                    + "under nohup?): it will not reload the file; POST /reload on the admin port does", id);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (!handled && gateway.drain()) {
                try {
                    gateway.drained().get();
                } catch (Exception e) {
                    // closing anyway
                }
            }
            gateway.close();
        }, "gateway-shutdown"));
        PrintWriter out = spec.commandLine().getOut();
        out.println("gateway " + id + " ready on " + gateway.host() + ":" + gateway.port() + " (admin "
                + gateway.adminHost() + ":" + gateway.adminPort() + ")");
        out.flush();
        DrainReport report;
        try {
            report = gateway.drained().get();
        } catch (ExecutionException e) {
            report = null;
        }
        gateway.close();
        out.println("gateway " + id + " " + (report == null ? "drain overran drainTimeout; closed" : Gateway.describe(report)));
        StopCause stop = gateway.stopCause();
        if (stop == StopCause.RESTART) {
            out.println("gateway " + id + ": drained on POST /drain; exiting " + stop.exitStatus()
                    + " so that the service manager starts it again (POST /drain?final=true exits 0)");
        }
        out.flush();
        return stop.exitStatus();
    }

    /**
     * Installs {@code action} for the named signals; false where the JVM offers no signal API.
     * {@code sun.misc.Signal} (module jdk.unsupported) is reached by reflection: it is the only way
     * to replace the JVM's SIGTERM behaviour (run the shutdown hooks, exit 143) with a drain that
     * ends in exit 0, and a direct reference draws an unsuppressible compiler warning.
     */
    private static boolean onSignals(Runnable action, String... names) {
        try {
            Class<?> signal = Class.forName("sun.misc.Signal");
            Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
            Object handler = Proxy.newProxyInstance(handlerType.getClassLoader(), new Class<?>[] {handlerType},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "handle" -> {
                            action.run();
                            yield null;
                        }
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> "gateway drain on signal";
                    });
            Method handle = signal.getMethod("handle", signal, handlerType);
            Object ignored = handlerType.getField("SIG_IGN").get(null);
            boolean all = true;
            for (String name : names) {
                // a signal the process was started with ignored stays ignored: the JVM returns SIG_IGN
                if (handle.invoke(null, signal.getConstructor(String.class).newInstance(name), handler) == ignored) {
                    all = false;
                }
            }
            return all;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** Runs the command on its own (the dist jar registers it as a subcommand instead). */
    public static void main(String[] args) {
        NettyDefaults.apply(); // before any Netty class loads
        System.exit(new CommandLine(new GatewayCommand()).execute(args));
    }
}
