package org.arbiter.dist.logging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.ZoneId;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.impl.Log4jLogEvent;
import org.apache.logging.log4j.core.time.MutableInstant;
import org.apache.logging.log4j.message.SimpleMessage;
import org.junit.jupiter.api.Test;

final class JsonLinesLayoutTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void event_isOneLineOfJson_withTimeInTheZone_levelThreadLoggerMessageAndException() throws Exception {
        MutableInstant at = new MutableInstant();
        at.initFromEpochMilli(1_795_640_663_875L, 0); // 2026-11-25T21:04:23.875Z
        String line = new JsonLinesLayout(ZoneId.of("Europe/Berlin")).toSerializable(Log4jLogEvent.newBuilder()
                .setLevel(Level.ERROR).setLoggerName("org.arbiter.grm.GrmService").setThreadName("grm \"loop\"")
                .setInstant(at).setMessage(new SimpleMessage("two\nlines and a \"quote\""))
                .setThrown(new IllegalStateException("boom")).build());

        assertThat(line).endsWith("\n");
        assertThat(line.substring(0, line.length() - 1)).doesNotContain("\n");
        JsonNode n = JSON.readTree(line);
        assertThat(n.get("time").asText()).isEqualTo("2026-11-25T22:04:23.875+01:00");
        assertThat(n.get("level").asText()).isEqualTo("ERROR");
        assertThat(n.get("thread").asText()).isEqualTo("grm \"loop\"");
        assertThat(n.get("logger").asText()).isEqualTo("org.arbiter.grm.GrmService");
        assertThat(n.get("message").asText()).isEqualTo("two\nlines and a \"quote\"");
        assertThat(n.get("exception").asText()).startsWith("java.lang.IllegalStateException: boom")
                .contains("at org.arbiter.dist.logging.JsonLinesLayoutTest");
    }

    @Test
    void eventWithoutException_hasNoExceptionField_andUtcReadsZ() throws Exception {
        MutableInstant at = new MutableInstant();
        at.initFromEpochMilli(1_000, 0); // (0 would read as "not set": the builder takes the clock)
        JsonNode n = JSON.readTree(new JsonLinesLayout(ZoneId.of("UTC")).toSerializable(Log4jLogEvent.newBuilder()
                .setLevel(Level.INFO).setLoggerName("x").setThreadName("main").setInstant(at)
                .setMessage(new SimpleMessage("hi")).build()));
        assertThat(n.has("exception")).isFalse();
        assertThat(n.get("time").asText()).isEqualTo("1970-01-01T00:00:01.000Z");
    }
}
