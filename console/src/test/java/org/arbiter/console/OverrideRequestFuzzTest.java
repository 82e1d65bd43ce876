package org.arbiter.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Instant;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.Decoded;
import org.arbiter.common.message.MessageCodec;
import org.arbiter.common.message.OperatorOverride;

/**
 * Coverage-guided fuzzing of the console's override form, {@code POST /api/overrides} (Jazzer): the
 * body is parsed with the console's mapper and read by {@link OverrideRequest#read}, as the handler does.
 *
 * <p>Properties: no body makes {@code read} throw; a refusal names its field and rule; an accepted
 * override survives the bus (encodes, and decodes to an equal record on the GRM's side), so what the
 * console publishes is never refused by the codec.
 */
class OverrideRequestFuzzTest {

    private static final ClusterConfig CONFIG = Fixtures.config();
    private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");

    @FuzzTest(maxDuration = "5m")
    void read(byte[] body) {
        JsonNode json;
        try {
            json = MessageCodec.mapper().readTree(body);
        } catch (IOException e) {
            json = null;  // the handler answers 400 "not JSON" here (also for a CharConversionException)
        }
        OverrideRequest.Result r = OverrideRequest.read(json, CONFIG, "alice", NOW);
        if (r instanceof OverrideRequest.Result.Invalid invalid) {
            assertThat(invalid.field()).isNotBlank();
            assertThat(invalid.message()).startsWith(invalid.field());
            return;
        }
        OperatorOverride o = ((OverrideRequest.Result.Valid) r).override();
        Decoded<OperatorOverride> back = MessageCodec.decode(MessageCodec.encode(o), OperatorOverride.class);
        assertThat(back).as("what the console accepts, the GRM can read").isInstanceOf(Decoded.Ok.class);
        assertThat(((Decoded.Ok<OperatorOverride>) back).value()).isEqualTo(o);
    }
}
