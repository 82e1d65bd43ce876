package org.arbiter.sim.experiment;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * How an experiment's result record becomes {@code result.json}: Jackson, indented, keys in each
 * record's component order (or its {@code @JsonPropertyOrder}), numbers as Java prints them
 * ({@code 1.0} for a double, {@code 1} for an int or long). Thread-safe.
 */
public final class ResultJson {

    private static final ObjectWriter WRITER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writer();

    private ResultJson() {
    }

    /** The JSON text of {@code result}, as {@link #write} puts it in the file. */
    public static String toJson(Object result) {
        try {
            return WRITER.writeValueAsString(result);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes {@code result} to {@code file}. */
    public static void write(Object result, Path file) throws IOException {
        WRITER.writeValue(file.toFile(), result);
    }
}
