package org.arbiter.dist.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.apache.logging.log4j.core.impl.Log4jLogEvent;
import org.apache.logging.log4j.message.ParameterizedMessage;
import org.junit.jupiter.api.Test;

/** The appender on a fake clock, in front of an appender that keeps what it gets. */
final class RepeatLimitingAppenderTest {

    private static final long S = 1_000_000_000L;

    private final AtomicLong now = new AtomicLong();
    private final Captured captured = new Captured();
    private final RepeatLimitingAppender appender = new RepeatLimitingAppender("test",
            new ArbiterLogConfiguration.KnownNoise(), captured, new RepeatLimiter(Duration.ofMinutes(1), 100), now::get);

    @Test
    void repeatedWarning_isShownOnce_thenWithTheCountOfThoseHeldBack() {
        appender.start();
        for (int i = 0; i < 276; i++) {
            now.set(i * 100_000_000L); // 276 in 27.6 s, with different arguments: one template
            append(Level.WARN, "org.arbiter.gateway.Dispatcher", "backend {} refused the connection", "s" + (i % 3));
        }
        assertThat(captured.messages()).containsExactly("backend s0 refused the connection");

        now.set(61 * S);
        append(Level.WARN, "org.arbiter.gateway.Dispatcher", "backend {} refused the connection", "s2");
        assertThat(captured.messages()).containsExactly("backend s0 refused the connection",
                "backend s2 refused the connection (×275 in the last minute)");
        assertThat(captured.events.get(1).getLevel()).isEqualTo(Level.WARN);
        assertThat(captured.events.get(1).getLoggerName()).isEqualTo("org.arbiter.gateway.Dispatcher");
    }

    @Test
    void infoLines_andOtherLoggersOrLevels_areNotLimitedTogether() {
        appender.start();
        for (int i = 0; i < 5; i++) {
            append(Level.INFO, "org.arbiter.grm.GrmService", "allocation v{} published", i);
        }
        append(Level.WARN, "a", "same text");
        append(Level.WARN, "b", "same text");
        append(Level.ERROR, "a", "same text");
        append(Level.WARN, "a", "same text");
        assertThat(captured.messages()).containsExactly("allocation v0 published", "allocation v1 published",
                "allocation v2 published", "allocation v3 published", "allocation v4 published",
                "same text", "same text", "same text");
    }

    @Test
    void knownNoise_ofTheEmbeddedBroker_isDropped() {
        LogEvent empty = event(Level.WARN, "org.apache.kafka.controller.QuorumController",
                "[QuorumController id=1] Performing controller activation. The metadata log appears to be empty. "
                        + "Appending 6 bootstrap record(s)");
        LogEvent other = event(Level.WARN, "org.apache.kafka.controller.QuorumController", "something else");
        assertThat(appender.isFiltered(empty)).isTrue();
        assertThat(appender.isFiltered(other)).isFalse();
    }

    private void append(Level level, String logger, String template, Object... args) {
        appender.append(event(level, logger, template, args));
    }

    private static LogEvent event(Level level, String logger, String template, Object... args) {
        return Log4jLogEvent.newBuilder().setLevel(level).setLoggerName(logger)
                .setMessage(new ParameterizedMessage(template, args)).setThreadName("main").build();
    }

    private static final class Captured extends AbstractAppender {
        final List<LogEvent> events = new ArrayList<>();

        Captured() {
            super("captured", null, null, true, Property.EMPTY_ARRAY);
        }

        @Override
        public void append(LogEvent event) {
            events.add(event.toImmutable());
        }

        List<String> messages() {
            return events.stream().map(e -> e.getMessage().getFormattedMessage()).toList();
        }
    }
}
