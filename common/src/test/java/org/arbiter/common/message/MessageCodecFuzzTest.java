package org.arbiter.common.message;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.List;

/**
 * Coverage-guided fuzzing of {@link MessageCodec#decode} for every message type (Jazzer).
 *
 * <p>Properties: decoding any bytes as any type never throws (a bad record is a {@link Decoded.Failure}
 * with a reason, never an exception that could stop a consumer loop), and whatever decodes re-encodes
 * to a record that decodes to an equal value (nothing the codec accepts is lost or changed on the way
 * back out).
 *
 * <p>In {@code ./mvnw verify} the default test run replays the regression corpus in
 * {@code src/test/resources/org/arbiter/common/message/MessageCodecFuzzTestInputs/decode/}; the
 * {@code fuzz-codec} execution then fuzzes for {@code fuzz.duration}. The input's last byte picks the
 * type (Jazzer's {@code FuzzedDataProvider} reads numbers from the end), the rest is the record.
 */
class MessageCodecFuzzTest {

    static final List<Class<? extends Message>> TYPES =
            List.of(Allocation.class, GatewayStats.class, PowerOrder.class, OperatorOverride.class, Decision.class);

    @FuzzTest(maxDuration = "5m")
    void decode(FuzzedDataProvider data) {
        Class<? extends Message> type = TYPES.get(data.consumeInt(0, TYPES.size() - 1));
        byte[] record = data.consumeRemainingAsBytes();
        roundTrip(record, type);
    }

    static <T extends Message> void roundTrip(byte[] record, Class<T> type) {
        Decoded<T> decoded = MessageCodec.decode(record, type);
        assertThat(decoded).isNotNull();
        if (decoded instanceof Decoded.Failure<T> f) {
            assertThat(f.reason()).as("a refusal names what is wrong").isNotBlank();
            return;
        }
        T value = ((Decoded.Ok<T>) decoded).value();
        Decoded<T> again = MessageCodec.decode(MessageCodec.encode(value), type);
        assertThat(again).as("what decodes re-encodes and decodes again").isInstanceOf(Decoded.Ok.class);
        assertThat(((Decoded.Ok<T>) again).value()).isEqualTo(value);
    }
}
