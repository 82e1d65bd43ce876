package org.arbiter.dist;

import java.io.PrintWriter;
import org.arbiter.dist.logging.Logging;
import org.arbiter.runtime.netty.NettyDefaults;
import picocli.CommandLine;

/**
 * {@code java -jar arbiter.jar COMMAND}: the one executable. Exit codes: 0 success, 1 failure
 * while running, 2 bad arguments or configuration (always with one clear line per problem).
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        NettyDefaults.apply(); // before any Netty class loads
        // Our logging (built in code), unless the operator brings a file (-Dlog4j.configurationFile=...).
        if (System.getProperty("log4j.configurationFile") == null) {
            Logging.install(Logging.formatIn(args));
        }
        System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /** Runs a command line with the given streams; returns the exit code (used by tests). */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cl = ArbiterCommand.commandLine();
        cl.setOut(out);
        cl.setErr(err);
        return cl.execute(args);
    }
}
