package org.arbiter.gateway.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.arbiter.runtime.cli.ConfigFileOption;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigException;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.l4.HaproxyConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code arbiter switch}: configurations for an L4 switch in front of the gateways. */
@Command(name = "switch", mixinStandardHelpOptions = true,
        description = "Writes the configuration of an L4 switch in front of the gateways.",
        subcommands = SwitchCommand.Haproxy.class)
public final class SwitchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 2;
    }

    /** {@code arbiter switch haproxy}. */
    @Command(name = "haproxy", mixinStandardHelpOptions = true,
            description = {"Writes an HAProxy configuration (mode tcp): one server per gateway with send-proxy-v2,",
                    "balance leastconn, health checks of each gateway's /ready on its admin port.",
                    "Every gateway needs proxyProtocol: true, and gateway.trustedProxies the switch's address.",
                    "Exit 2 with one line per problem otherwise."})
    public static final class Haproxy implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Mixin
        ConfigFileOption config;

        @Option(names = "--out", paramLabel = "FILE", description = "Write here (default: standard output).")
        Path out;

        @Option(names = "--bind", paramLabel = "HOST:PORT", defaultValue = "0.0.0.0:80",
                description = "Where the switch listens for clients (default: ${DEFAULT-VALUE}).")
        String bind;

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
            String text;
            try {
                text = HaproxyConfig.generate(cluster, bind, config.file().toString());
            } catch (HaproxyConfig.Invalid e) {
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
