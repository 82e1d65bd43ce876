package org.arbiter.dist.logging;

import java.util.Objects;
import java.util.function.LongSupplier;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.Filter;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.apache.logging.log4j.core.impl.Log4jLogEvent;
import org.apache.logging.log4j.message.Message;
import org.apache.logging.log4j.message.SimpleMessage;

/**
 * Passes events to another appender, rate-limiting repeated warnings and errors with a
 * {@link RepeatLimiter}: the key is the logger, the level and the message's template (the
 * {@code {}} pattern before its arguments are filled in), so "backend s1 refused" and
 * "backend s2 refused" from one {@code log.warn("backend {} refused", id)} count as one line.
 * Info and debug lines pass untouched. A shown line that follows held-back ones ends with
 * {@code (×275 in the last minute)}.
 *
 * <p>Thread-safe (the limiter is; the delegate is a log4j appender).
 */
public final class RepeatLimitingAppender extends AbstractAppender {

    private final Appender delegate;
    private final RepeatLimiter limiter;
    private final LongSupplier nanoClock;

    /** {@code filter} (may be null) drops events before they are counted; the delegate's own filter is not consulted. */
    public RepeatLimitingAppender(String name, Filter filter, Appender delegate, RepeatLimiter limiter,
            LongSupplier nanoClock) {
        super(name, filter, null, true, Property.EMPTY_ARRAY);
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.limiter = Objects.requireNonNull(limiter, "limiter");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    }

    @Override
    public void append(LogEvent event) {
        if (!event.getLevel().isMoreSpecificThan(Level.WARN)) {
            delegate.append(event);
            return;
        }
        Message message = event.getMessage();
        String template = message.getFormat() != null ? message.getFormat() : message.getFormattedMessage();
        String key = event.getLoggerName() + '\u0000' + event.getLevel() + '\u0000' + template;
        if (limiter.offer(key, nanoClock.getAsLong()) instanceof RepeatLimiter.Decision.Show show) {
            String suffix = RepeatLimiter.suffix(show.heldBack(), show.sinceNanos());
            if (suffix.isEmpty()) {
                delegate.append(event);
            } else {
                delegate.append(new Log4jLogEvent.Builder(event)
                        .setMessage(new SimpleMessage(message.getFormattedMessage() + suffix)).build());
            }
        }
    }
}
