package org.arbiter.gateway.netty;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AsyncAppender;
import org.apache.logging.log4j.core.appender.RollingFileAppender;
import org.apache.logging.log4j.core.appender.rolling.DefaultRolloverStrategy;
import org.apache.logging.log4j.core.appender.rolling.SizeBasedTriggeringPolicy;
import org.apache.logging.log4j.core.config.AbstractConfiguration;
import org.apache.logging.log4j.core.config.AppenderRef;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.layout.PatternLayout;

/**
 * Gives the access logger its own Log4j 2 appenders (rolling file behind a non-blocking async
 * queue). Kept apart from {@link AccessLog} so that the gateway still loads when log4j-core is not
 * on the class path (then {@link #install} throws a LinkageError and the lines go to the SLF4J
 * backend's own configuration). Thread-safe (synchronised on the Log4j configuration).
 */
final class Log4jAccessAppender {

    private Log4jAccessAppender() {
    }

    /**
     * Installs the appenders for {@code loggerName}, writing {@code file} and rolling it to
     * {@code file.1} … {@code file.maxFiles} at {@code maxFileBytes}.
     *
     * @return what detaches and stops them
     * @throws IllegalStateException when the SLF4J backend is not Log4j 2 core
     */
    static Runnable install(String loggerName, String file, long maxFileBytes, int maxFiles) {
        if (!(LogManager.getContext(false) instanceof LoggerContext ctx)) {
            throw new IllegalStateException("the logging backend is not Log4j 2 core");
        }
        synchronized (ctx) {
            Configuration cfg = ctx.getConfiguration();
            String fileName = loggerName + ".file";
            String asyncName = loggerName + ".async";
            RollingFileAppender rolling = RollingFileAppender.newBuilder()
                    .setName(fileName)
                    .withFileName(file)
                    .withFilePattern(file + ".%i")
                    .withPolicy(SizeBasedTriggeringPolicy.createPolicy(Long.toString(maxFileBytes)))
                    .withStrategy(DefaultRolloverStrategy.newBuilder().withMin("1").withMax(Integer.toString(maxFiles))
                            .withFileIndex("min").withConfig(cfg).build())
                    .setLayout(PatternLayout.newBuilder().withPattern("%m%n").withConfiguration(cfg).build())
                    .setImmediateFlush(true)
                    .setConfiguration(cfg)
                    .build();
            if (rolling == null) {
                throw new IllegalStateException("cannot open " + file);
            }
            rolling.start();
            cfg.addAppender(rolling);
            AsyncAppender async = AsyncAppender.newBuilder()
                    .setName(asyncName)
                    .setAppenderRefs(new AppenderRef[] {AppenderRef.createAppenderRef(fileName, null, null)})
                    .setBlocking(false)
                    .setBufferSize(8192)
                    .setConfiguration(cfg)
                    .build();
            async.start();
            cfg.addAppender(async);
            LoggerConfig logger = LoggerConfig.newBuilder()
                    .withLoggerName(loggerName)
                    .withLevel(Level.INFO)
                    .withAdditivity(false)
                    .withConfig(cfg)
                    .build();
            logger.addAppender(async, Level.INFO, null);
            cfg.removeLogger(loggerName);
            cfg.addLogger(loggerName, logger);
            ctx.updateLoggers();
            return () -> {
                synchronized (ctx) {
                    Configuration now = ctx.getConfiguration();
                    now.removeLogger(loggerName);
                    ctx.updateLoggers();
                    stop(now, async);
                    stop(now, rolling);
                }
            };
        }
    }

    private static void stop(Configuration cfg, Appender a) {
        a.stop();
        if (cfg instanceof AbstractConfiguration ac) {
            ac.removeAppender(a.getName());
        }
    }
}
