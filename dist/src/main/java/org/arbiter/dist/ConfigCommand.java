package org.arbiter.dist;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigException;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.config.ConfigWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code arbiter config}: work with cluster.yaml. */
@Command(name = "config", mixinStandardHelpOptions = true, description = "Works with cluster.yaml.",
        subcommands = ConfigCommand.Check.class)
final class ConfigCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 2;
    }

    @Command(name = "check", mixinStandardHelpOptions = true,
            description = {"Validates a cluster.yaml and prints the effective configuration with every default filled in.",
                    "Exit 0 when valid; exit 2 with one line per problem (YAML path and rule) otherwise,",
                    "at most 50 of them and a line counting the rest."})
    static final class Check implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        @Parameters(paramLabel = "FILE", description = "The cluster.yaml to check.")
        Path file;

        @Override
        public Integer call() {
            try {
                ClusterConfig config = ConfigLoader.load(file);
                spec.commandLine().getOut().print(ConfigWriter.toYaml(config));
                spec.commandLine().getOut().flush();
                return 0;
            } catch (ConfigException e) {
                PrintWriter err = spec.commandLine().getErr();
                // one line per problem, nothing else (scripts count them); past 50, a last line counts the rest
                e.errors().forEach(err::println);
                err.flush();
                return 2;
            }
        }
    }
}
