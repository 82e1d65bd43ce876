package org.arbiter.dist.logging;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.layout.AbstractStringLayout;

/**
 * One JSON object per line: {@code time} (ISO-8601 with the zone's offset, milliseconds),
 * {@code level}, {@code thread}, {@code logger}, {@code message} and, when the event carries
 * one, {@code exception} (the stack trace as text). Newlines inside values are escaped, so a
 * line is always one event.
 *
 * <p>Thread-safe (stateless; one generator per event).
 */
public final class JsonLinesLayout extends AbstractStringLayout {

    private static final JsonFactory JSON = new JsonFactory();

    private final DateTimeFormatter time;

    public JsonLinesLayout(ZoneId zone) {
        super(StandardCharsets.UTF_8);
        this.time = LogFormat.TIME.withZone(zone);
    }

    @Override
    public String toSerializable(LogEvent event) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            var instant = event.getInstant();
            g.writeStringField("time", time.format(Instant.ofEpochSecond(instant.getEpochSecond(),
                    instant.getNanoOfSecond())));
            g.writeStringField("level", event.getLevel().name());
            g.writeStringField("thread", event.getThreadName());
            g.writeStringField("logger", event.getLoggerName());
            g.writeStringField("message", event.getMessage().getFormattedMessage());
            if (event.getThrown() != null) {
                StringWriter trace = new StringWriter();
                event.getThrown().printStackTrace(new PrintWriter(trace));
                g.writeStringField("exception", trace.toString());
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.append('\n').toString();
    }
}
