package org.arbiter.dist.logging;

import java.io.Serializable;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.Filter;
import org.apache.logging.log4j.core.Layout;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.appender.ConsoleAppender;
import org.apache.logging.log4j.core.config.AbstractConfiguration;
import org.apache.logging.log4j.core.config.ConfigurationSource;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.filter.AbstractFilter;
import org.apache.logging.log4j.core.layout.PatternLayout;

/**
 * Arbiter's logging, built in code (no XML, no plugin scanning): one appender on stderr in the
 * chosen {@link LogFormat}, behind a {@link RepeatLimitingAppender} (a warning repeated within a
 * minute is shown once, then with its count); Arbiter's own loggers at {@code -Darbiter.log.level}
 * (default info), everything else (Kafka, Netty) at warn; a few start-up notices of the embedded
 * broker that mean nothing to an operator are dropped ({@link #KNOWN_NOISE}).
 *
 * <p>Log4j's own shutdown hook is off: the processes log while they stop (a gateway's drain, the
 * broker's shutdown) from their own shutdown hooks, which would otherwise race log4j's and start
 * a second logger context ("Unable to register shutdown hook because JVM is shutting down"). The
 * console appender flushes every line, so nothing is lost at exit.
 */
public final class ArbiterLogConfiguration extends AbstractConfiguration {

    /** Lines a process logs when nothing is wrong: (logger, start of the message). */
    static final List<List<String>> KNOWN_NOISE = List.of(
            // a new KRaft data directory: the controller writes its bootstrap records (every first start)
            List.of("org.apache.kafka.controller.QuorumController", "The metadata log appears to be empty"),
            // two consumers of one broker asked for __consumer_offsets at once; the second finds it made
            List.of("kafka.server.DefaultAutoTopicCreationManager", "error 'TOPIC_ALREADY_EXISTS'"));

    private final LogFormat format;
    private final Level arbiterLevel;
    private final ZoneId zone;
    private final LongSupplier nanoClock;

    public ArbiterLogConfiguration(LogFormat format, Level arbiterLevel, ZoneId zone, LongSupplier nanoClock) {
        super(null, ConfigurationSource.NULL_SOURCE);
        this.format = Objects.requireNonNull(format, "format");
        this.arbiterLevel = Objects.requireNonNull(arbiterLevel, "arbiterLevel");
        this.zone = Objects.requireNonNull(zone, "zone");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.isShutdownHookEnabled = false;
        setName("arbiter-" + format.word());
    }

    @Override
    protected void doConfigure() {
        Layout<? extends Serializable> layout = format == LogFormat.JSON
                ? new JsonLinesLayout(zone)
                : PatternLayout.newBuilder().withConfiguration(this).withPattern(LogFormat.textPattern(zone)).build();
        ConsoleAppender stderr = ConsoleAppender.newBuilder().setName("stderr").setConfiguration(this)
                .setTarget(ConsoleAppender.Target.SYSTEM_ERR).setLayout(layout).build();
        stderr.start();
        addAppender(stderr);
        RepeatLimitingAppender limited = new RepeatLimitingAppender("repeats", new KnownNoise(), stderr,
                new RepeatLimiter(Duration.ofMinutes(1), 10_000), nanoClock);
        limited.start();
        addAppender(limited);

        LoggerConfig root = getRootLogger();
        root.setLevel(Level.WARN);
        root.addAppender(limited, null, null);
        logger("org.arbiter", arbiterLevel);
        logger("org.apache.kafka", Level.WARN);
        logger("kafka", Level.WARN);
        logger("state.change.logger", Level.WARN);
        // a client retrying a broker that is not up yet (or gone) logs at warn every few ms
        logger("org.apache.kafka.clients.NetworkClient", Level.ERROR);
    }

    private void logger(String name, Level level) {
        addLogger(name, LoggerConfig.newBuilder().withLoggerName(name).withLevel(level)
                .withAdditivity(true).withConfig(this).build());
    }

    /** Drops {@link #KNOWN_NOISE}. */
    static final class KnownNoise extends AbstractFilter {
        KnownNoise() {
            super(Filter.Result.NEUTRAL, Filter.Result.DENY);
        }

        @Override
        public Result filter(LogEvent event) {
            String logger = event.getLoggerName();
            for (List<String> noise : KNOWN_NOISE) {
                if (noise.get(0).equals(logger) && event.getMessage().getFormattedMessage().contains(noise.get(1))) {
                    return Result.DENY;
                }
            }
            return Result.NEUTRAL;
        }
    }
}
