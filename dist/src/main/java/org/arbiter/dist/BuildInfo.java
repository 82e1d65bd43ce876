package org.arbiter.dist;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The build's version and git commit, from {@code org/arbiter/dist/version.properties} (written
 * by the build: dist/pom.xml). A commit that was not known at build time (no git checkout)
 * reads {@code unknown}; a build from a work tree with uncommitted changes reads
 * {@code <commit>-dirty}.
 */
public record BuildInfo(String version, String commit) {

    static final String RESOURCE = "version.properties";

    /** The running build's. */
    public static BuildInfo current() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return of(p);
    }

    /** From the properties {@code version} and {@code commit}; missing or unfilled ones read unknown. */
    static BuildInfo of(Properties p) {
        String version = known(p.getProperty("version"));
        String commit = known(p.getProperty("commit"));
        return new BuildInfo(version == null ? "unknown" : version, commit == null ? "unknown" : commit);
    }

    private static String known(String value) {
        return value == null || value.isBlank() || value.contains("${") ? null : value.trim();
    }

    /** {@code arbiter 0.1.0 (commit 1a2b3c4d5e6f)}. */
    public String line() {
        return "arbiter " + version + " (commit " + commit + ")";
    }
}
