package org.arbiter.dist.logging;

import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Optional;
import picocli.CommandLine;

/** How log lines are written: {@code text} for people, {@code json} for collectors (one object per line). */
public enum LogFormat {
    /** {@code 2026-11-25T21:24:23.875+01:00 WARN  [main] Gateway - message}. */
    TEXT("text"),
    /** {@code {"time":"…","level":"WARN","thread":"main","logger":"…","message":"…"}}. */
    JSON("json");

    /** ISO-8601 local time with the zone's offset ({@code Z} for UTC), milliseconds. */
    static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSXXX");

    /** The log4j pattern of {@link #TEXT}: the same time as {@link #TIME} in {@code zone}, level, thread, logger. */
    static String textPattern(java.time.ZoneId zone) {
        return "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX}{" + zone.getId() + "} %-5level [%t] %c{1} - %msg%n%throwable";
    }

    private final String word;

    LogFormat(String word) {
        this.word = word;
    }

    /** The word on the command line. */
    public String word() {
        return word;
    }

    /** The format written {@code word}. */
    public static Optional<LogFormat> of(String word) {
        return Arrays.stream(values()).filter(f -> f.word.equals(word)).findFirst();
    }

    /** picocli: {@code text} or {@code json}. */
    public static final class Converter implements CommandLine.ITypeConverter<LogFormat> {
        @Override
        public LogFormat convert(String value) {
            return of(value).orElseThrow(() -> new CommandLine.TypeConversionException(
                    "'" + value + "' (expected: text or json)"));
        }
    }

    /** picocli: the words, for help and completion. */
    public static final class Words implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.stream(values()).map(LogFormat::word).iterator();
        }
    }
}
