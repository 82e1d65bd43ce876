package org.arbiter.console;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/** Collects the formatted messages of one logger (INFO and above) while open. */
public final class LogCapture extends AbstractAppender implements AutoCloseable {

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final String logger;

    private LogCapture(String logger) {
        super("capture-" + logger, null, null, true, Property.EMPTY_ARRAY);
        this.logger = logger;
    }

    public static LogCapture of(Class<?> type) {
        LogCapture c = new LogCapture(type.getName());
        c.start();
        LoggerContext ctx = LoggerContext.getContext(false);
        Configuration config = ctx.getConfiguration();
        config.addAppender(c);
        LoggerConfig lc = new LoggerConfig(type.getName(), Level.INFO, true);
        lc.addAppender(c, Level.INFO, null);
        config.addLogger(type.getName(), lc);
        ctx.updateLoggers();
        return c;
    }

    @Override
    public void append(LogEvent event) {
        lines.add(event.getLevel() + " " + event.getMessage().getFormattedMessage());
    }

    public List<String> lines() {
        return List.copyOf(lines);
    }

    @Override
    public void close() {
        LoggerContext ctx = LoggerContext.getContext(false);
        ctx.getConfiguration().removeLogger(logger);
        ctx.updateLoggers();
        stop();
    }
}
