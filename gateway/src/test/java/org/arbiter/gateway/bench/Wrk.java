package org.arbiter.gateway.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs {@code wrk} with a Lua script whose {@code done()} prints one exact line (requests,
 * duration, p50/p99/p99.9 from {@code latency:percentile}, error counts), so nothing is parsed
 * from wrk's rounded human output.
 */
final class Wrk {

    private static final String SCRIPT = """
            wrk.headers["X-Class"] = "premium"
            done = function(summary, latency, requests)
              local e = summary.errors
              io.write(string.format(
                "BENCH requests=%d duration_us=%d p50_us=%.1f p99_us=%.1f p999_us=%.1f status=%d connect=%d read=%d write=%d timeout=%d\\n",
                summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
                latency:percentile(99.9), e.status, e.connect, e.read, e.write, e.timeout))
            end
            """;

    private static final Pattern LINE = Pattern.compile("BENCH requests=(\\d+) duration_us=(\\d+) p50_us=([0-9.]+) "
            + "p99_us=([0-9.]+) p999_us=([0-9.]+) status=(\\d+) connect=(\\d+) read=(\\d+) write=(\\d+) timeout=(\\d+)");

    /** One wrk run's outcome; latencies in microseconds; non2xx counts non-2xx/3xx answers. */
    record Outcome(long requests, double seconds, double p50, double p99, double p999, long non2xx, long errors,
            String text) {
        double requestsPerSecond() {
            return seconds > 0 ? requests / seconds : 0;
        }
    }

    private final Path script;
    private final int threads;

    Wrk(Path dir, int threads) throws IOException {
        this.script = dir.resolve("report.lua");
        this.threads = threads;
        Files.writeString(script, SCRIPT);
    }

    Outcome run(String url, int connections, int seconds) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("wrk", "-t" + Math.min(threads, connections), "-c" + connections,
                "-d" + seconds + "s", "--latency", "-s", script.toString(), url));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int rc = p.waitFor();
        Matcher m = LINE.matcher(text);
        if (rc != 0 || !m.find()) {
            throw new IOException("wrk " + String.join(" ", cmd) + " exited " + rc + " without its report line:\n" + text);
        }
        long errors = 0;
        for (int i = 7; i <= 10; i++) {
            errors += Long.parseLong(m.group(i));
        }
        return new Outcome(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)) / 1e6,
                Double.parseDouble(m.group(3)), Double.parseDouble(m.group(4)), Double.parseDouble(m.group(5)),
                Long.parseLong(m.group(6)), errors, text);
    }
}
