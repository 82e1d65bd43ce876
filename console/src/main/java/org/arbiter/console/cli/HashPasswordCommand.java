package org.arbiter.console.cli;

import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.concurrent.Callable;
import org.arbiter.console.auth.Pbkdf2;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code arbiter console hash-password}: prints the {@code passwordHash} of a console user. */
@Command(name = "hash-password", mixinStandardHelpOptions = true,
        description = {"Reads a password (from --password, the terminal, or the first line of standard input) and prints",
                "its PBKDF2 hash for console.users[].passwordHash in cluster.yaml."})
public final class HashPasswordCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--password", paramLabel = "PASSWORD", description = "The password (visible in the process list; prefer stdin).")
    String password;

    @Option(names = "--iterations", paramLabel = "N", description = "PBKDF2 iterations (default: ${DEFAULT-VALUE}).")
    int iterations = Pbkdf2.DEFAULT_ITERATIONS;

    @Override
    public Integer call() throws IOException {
        if (iterations < 1_000) {
            spec.commandLine().getErr().println("hash-password: --iterations " + iterations + " (expected: >= 1000)");
            return 2;
        }
        char[] secret = read();
        if (secret == null || secret.length == 0) {
            spec.commandLine().getErr().println("hash-password: empty password (expected: a password on stdin or --password)");
            return 2;
        }
        spec.commandLine().getOut().println(Pbkdf2.hash(secret, iterations, new SecureRandom()));
        Arrays.fill(secret, '\0');
        return 0;
    }

    private char[] read() throws IOException {
        if (password != null) {
            return password.toCharArray();
        }
        Console terminal = System.console();
        if (terminal != null) {
            return terminal.readPassword("password: ");
        }
        String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        return line == null ? null : line.toCharArray();
    }
}
