package org.arbiter.dist.logging;

import java.time.ZoneId;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;

/** Sets up {@link ArbiterLogConfiguration} for the process, before anything logs. */
public final class Logging {

    /**
     * Log4j's context selector holds contexts weakly: until the first logger holds it, a garbage
     * collection would drop this one and the next logger would start a default context (errors only).
     */
    @SuppressWarnings("unused")
    private static volatile LoggerContext installed;

    private Logging() {
    }

    /**
     * The {@code --log-format} among the arguments ({@code --log-format json} or
     * {@code --log-format=json}, anywhere on the line); {@code text} when absent or not a format
     * (picocli then reports the bad value).
     */
    public static LogFormat formatIn(String[] args) {
        String value = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--log-format") && i + 1 < args.length) {
                value = args[i + 1];
            } else if (args[i].startsWith("--log-format=")) {
                value = args[i].substring("--log-format=".length());
            } else if (args[i].equals("--")) {
                break;
            }
        }
        return value == null ? LogFormat.TEXT : LogFormat.of(value).orElse(LogFormat.TEXT);
    }

    /**
     * Installs Arbiter's logging in this JVM: {@code format}, Arbiter's own level from
     * {@code -Darbiter.log.level} (default info), the system's time zone.
     */
    public static void install(LogFormat format) {
        Level level = Level.toLevel(System.getProperty("arbiter.log.level", "info"), Level.INFO);
        ArbiterLogConfiguration config = new ArbiterLogConfiguration(format, level, ZoneId.systemDefault(), System::nanoTime);
        LoggerContext ctx = Configurator.initialize(config);
        if (ctx != null && ctx.getConfiguration() != config) {
            ctx.reconfigure(config); // already started (something logged first): switch over
        }
        installed = ctx;
    }
}
