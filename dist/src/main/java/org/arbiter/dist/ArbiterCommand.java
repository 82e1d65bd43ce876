package org.arbiter.dist;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import org.arbiter.dist.logging.LogFormat;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/** The top-level {@code arbiter} command: a list of subcommands. */
@Command(name = "arbiter",
        mixinStandardHelpOptions = true,
        versionProvider = ArbiterCommand.Version.class,
        description = "SLA-driven workload manager for clusters of HTTP services.",
        subcommands = {
                KafkaCommand.class,
                ConfigCommand.class,
                org.arbiter.grm.cli.GrmCommand.class,
                org.arbiter.console.cli.ConsoleCommand.class,
                org.arbiter.sim.cli.SimCommand.class,
                org.arbiter.live.cli.ExperimentCommand.class,
                DemoCommand.class,
                CommandLine.HelpCommand.class})
public final class ArbiterCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /**
     * Read by {@link Main} before picocli parses (logging is set up before anything logs); here so
     * that it is validated, shown in every command's help and accepted after a subcommand too.
     */
    @Option(names = "--log-format", scope = ScopeType.INHERIT, paramLabel = "text|json", defaultValue = "text",
            converter = LogFormat.Converter.class, completionCandidates = LogFormat.Words.class,
            description = "Log lines on stderr: text (ISO time with zone, level, thread, logger) or json "
                    + "(one object per line: time, level, thread, logger, message, exception). Default: ${DEFAULT-VALUE}.")
    LogFormat logFormat;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 2;
    }

    /** The command line with Arbiter's error handling: bad arguments give one line and exit 2. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new ArbiterCommand());
        Subcommands.register(cl);
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine c = ex.getCommandLine();
            c.getErr().println(c.getCommandSpec().qualifiedName() + ": " + ex.getMessage()
                    + " (see '" + c.getCommandSpec().qualifiedName() + " --help')");
            return 2;
        });
        cl.setExecutionExceptionHandler((ex, c, parseResult) -> {
            if (ex instanceof UsageException u) {
                c.getErr().println(c.getCommandSpec().qualifiedName() + ": " + u.getMessage());
                return 2;
            }
            c.getErr().println(c.getCommandSpec().qualifiedName() + ": " + ex);
            ex.printStackTrace(c.getErr());
            return 1;
        });
        return cl;
    }

    /** Thrown by a command for an operator mistake (bad file, bad value): one line, exit 2. */
    public static final class UsageException extends RuntimeException {
        public UsageException(String message) {
            super(message);
        }
    }

    /** The build's version and commit ({@link BuildInfo}), and the Java running it. */
    public static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {BuildInfo.current().line(),
                    "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"};
        }
    }
}
