package org.arbiter.dist;

import picocli.CommandLine;

/** Registers the subcommands that live in other modules. */
final class Subcommands {

    private Subcommands() {
    }

    static void register(CommandLine cl) {
        // Commands from gateway, grm, loadgen, sim and console are added here as they land.
        cl.addSubcommand(new org.arbiter.grm.cli.SolveCommand());
        cl.addSubcommand(new org.arbiter.gateway.cli.GatewayCommand());
        cl.addSubcommand(new org.arbiter.gateway.cli.SwitchCommand());
        cl.addSubcommand(new org.arbiter.haproxy.cli.HaproxyCommand());
        cl.addSubcommand(new org.arbiter.haproxy.cli.AgentCommand());
        cl.addSubcommand(new org.arbiter.loadgen.cli.SimServerCommand());
        cl.addSubcommand(new org.arbiter.loadgen.cli.LoadgenCommand());
    }
}
