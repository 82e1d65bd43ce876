package org.arbiter.runtime.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The {@code --config FILE} option every process command shares (picocli mixin: {@code @Mixin
 * ConfigFileOption config;}). Required: picocli names it when it is missing.
 */
public final class ConfigFileOption {

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "cluster.yaml")
    Path file;

    /** The file given. */
    public Path file() {
        return file;
    }
}
