package org.arbiter.dist;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * Commands whose issue has not landed yet: each says so and exits 2, instead of pretending.
 * Replaced one by one by the real commands.
 */
final class PendingCommands {

    private PendingCommands() {
    }

    abstract static class Pending implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Unmatched
        String[] ignored;

        abstract String issue();

        @Override
        public Integer call() {
            spec.commandLine().getErr().println("arbiter " + spec.name() + ": not available yet in this build ("
                    + issue() + ")");
            return 2;
        }
    }

    @Command(name = "sim", mixinStandardHelpOptions = true, description = "Discrete-event simulator (not available yet).")
    static final class Sim extends Pending {
        @Override
        String issue() {
            return "issue 7: simulator";
        }
    }
}
