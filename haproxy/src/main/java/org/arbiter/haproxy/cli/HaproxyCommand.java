package org.arbiter.haproxy.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigException;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.haproxy.HaproxyGatewayConfig;
import org.arbiter.runtime.cli.ConfigFileOption;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code arbiter haproxy}: HAProxy as an Arbiter gateway ({@code gateways[].kind: haproxy}). */
@Command(name = "haproxy", mixinStandardHelpOptions = true,
        description = "Writes what HAProxy needs to serve as an Arbiter gateway (kind: haproxy).",
        subcommands = HaproxyCommand.Config.class)
public final class HaproxyCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 2;
    }

    /** {@code arbiter haproxy config}. */
    @Command(name = "config", mixinStandardHelpOptions = true,
            description = {"Writes HAProxy's configuration for one gateway of kind: haproxy: a frontend",
                    "that classifies as Arbiter's gateway does, one backend per class (balance",
                    "leastconn) with the configured allocation's per-server maxconn and weight,",
                    "and the stats socket `arbiter agent haproxy` drives. Exit 2 with one line",
                    "per problem otherwise."})
    public static final class Config implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Mixin
        ConfigFileOption config;

        @Option(names = "--gateway", required = true, paramLabel = "ID",
                description = "The gateway HAProxy serves as (gateways[].id, kind: haproxy).")
        String gateway;

        @Option(names = "--socket", paramLabel = "PATH",
                description = "The Runtime API socket (default: /run/haproxy/arbiter-<gateway>.sock).")
        String socket;

        @Option(names = "--state-file", paramLabel = "PATH",
                description = "HAProxy's server-state file (default: /var/lib/haproxy/arbiter-<gateway>.state).")
        String stateFile;

        @Option(names = "--out", paramLabel = "FILE", description = "Write here (default: standard output).")
        Path out;

        @Override
        public Integer call() {
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
            HaproxyGatewayConfig.Options options = new HaproxyGatewayConfig.Options(
                    socket != null ? socket : "/run/haproxy/arbiter-" + gateway + ".sock",
                    stateFile != null ? stateFile : "/var/lib/haproxy/arbiter-" + gateway + ".state",
                    config.file().toString());
            String text;
            try {
                text = HaproxyGatewayConfig.generate(cluster, gateway, options);
            } catch (HaproxyGatewayConfig.Invalid e) {
                e.errors().forEach(line -> err.println(name + ": " + line));
                err.flush();
                return 2;
            }
            if (out == null) {
                spec.commandLine().getOut().print(text);
                spec.commandLine().getOut().flush();
                return 0;
            }
            try {
                Files.writeString(out, text, StandardCharsets.UTF_8);
            } catch (IOException e) {
                err.println(name + ": --out: " + out + ": cannot write (" + e.getMessage() + ")");
                err.flush();
                return 2;
            }
            return 0;
        }
    }
}
