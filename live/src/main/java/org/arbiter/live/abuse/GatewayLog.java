package org.arbiter.live.abuse;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads what a gateway wrote to its log since a mark: the campaign's evidence of what a reload did
 * ("configuration N (hash) applied: …", "SIGHUP: the file is not valid …"). Reads at most a bounded
 * number of bytes, since a line may quote a long value. Stateless.
 */
final class GatewayLog {

    /** A configuration the gateway applied (a reload that took effect). */
    static final Pattern APPLIED = Pattern.compile("configuration \\d+ \\([0-9a-f]+\\) applied");

    private static final int MAX_BYTES = 1 << 20;

    private GatewayLog() {
    }

    /** The log's current length: pass it to {@link #linesSince}. */
    static long mark(Path log) throws IOException {
        return Files.exists(log) ? Files.size(log) : 0;
    }

    /** The lines written after {@code mark} (at most 1 MiB of them). */
    static List<String> linesSince(Path log, long mark) throws IOException {
        if (!Files.exists(log) || Files.size(log) <= mark) {
            return List.of();
        }
        try (SeekableByteChannel ch = Files.newByteChannel(log)) {
            ch.position(mark);
            ByteBuffer buf = ByteBuffer.allocate(MAX_BYTES);
            while (buf.hasRemaining() && ch.read(buf) > 0) {
                // fill
            }
            return List.of(new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8).split("\n"));
        }
    }

    /** How many configurations were applied after {@code mark}. */
    static int appliedSince(Path log, long mark) throws IOException {
        return (int) linesSince(log, mark).stream().filter(l -> APPLIED.matcher(l).find()).count();
    }

    /** A line cut to {@code max} characters. */
    static String cut(String line, int max) {
        return line.length() > max ? line.substring(0, max) + "…" : line;
    }
}
