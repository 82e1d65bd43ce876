package org.arbiter.common.message;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;

/**
 * JSON encoding of bus messages: Jackson, ISO-8601 instants, unknown fields ignored, validation
 * in the records' constructors. {@link #decode} never throws: a malformed record is a
 * {@link Decoded.Failure} naming what is wrong.
 *
 * <p>Thread-safe.
 */
public final class MessageCodec {

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
            .build();

    private MessageCodec() {
    }

    /** The shared mapper (configured as above); do not reconfigure it. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public static byte[] encode(Message message) {
        requireNonNull(message, "message");
        try {
            return MAPPER.writeValueAsBytes(message);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + message.getClass().getSimpleName(), e);
        }
    }

    public static String encodeToString(Message message) {
        return new String(encode(message), StandardCharsets.UTF_8);
    }

    /** Decodes one record; never throws. */
    public static <T extends Message> Decoded<T> decode(byte[] bytes, Class<T> type) {
        requireNonNull(type, "type");
        if (bytes == null) {
            return new Decoded.Failure<>("empty record (expected: a JSON " + type.getSimpleName() + ")");
        }
        try {
            T value = MAPPER.readValue(bytes, type);
            if (value == null) {
                return new Decoded.Failure<>("null (expected: a JSON " + type.getSimpleName() + ")");
            }
            return new Decoded.Ok<>(value);
        } catch (JsonMappingException e) {
            return new Decoded.Failure<>(describe(e, type));
        } catch (JacksonException e) {
            return new Decoded.Failure<>("not JSON: " + e.getOriginalMessage());
        } catch (IOException | RuntimeException e) {
            return new Decoded.Failure<>(type.getSimpleName() + ": " + e.getMessage());
        }
    }

    public static <T extends Message> Decoded<T> decode(String json, Class<T> type) {
        return decode(json == null ? null : json.getBytes(StandardCharsets.UTF_8), type);
    }

    private static String describe(JsonMappingException e, Class<?> type) {
        Throwable cause = e.getCause();
        String path = e.getPath().stream()
                .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining(".")).replace(".[", "[");
        if (cause instanceof IllegalArgumentException iae && iae.getMessage() != null) {
            // Validation in a record constructor: the message already names field and rule.
            return type.getSimpleName() + " " + (path.isEmpty() ? "" : path + ".") + iae.getMessage();
        }
        return type.getSimpleName() + " " + (path.isEmpty() ? "" : path + ": ") + e.getOriginalMessage();
    }
}
