package org.arbiter.runtime.cli;

import picocli.CommandLine.Option;

/**
 * The {@code --bootstrap HOST:PORT} option of the commands that talk to Kafka (picocli mixin:
 * {@code @Mixin BootstrapOption bootstrap;}). Absent: {@code kafka.bootstrap} in the file.
 */
public final class BootstrapOption {

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT",
            description = "Kafka bootstrap servers (default: kafka.bootstrap in the file).")
    String servers;

    /** The servers given, or null for the file's {@code kafka.bootstrap}. */
    public String servers() {
        return servers;
    }
}
