package org.arbiter.loadgen.client;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The load generator's progress line: per class the request rate and mean response time since
 * the previous line. Not thread-safe (the load generator's event loop only).
 */
final class ProgressLine {

    private final Map<String, long[]> last = new HashMap<>();
    private double lastSeconds;

    /**
     * @param nowSeconds since the run started
     * @param counts     per class: sent, ok, mean ok response (ms), Σ ok response (µs), as {@link ResultRecorder#progress()} gives
     */
    String next(double nowSeconds, String phase, long clients, Map<String, long[]> counts) {
        double dt = Math.max(1e-9, nowSeconds - lastSeconds);
        lastSeconds = nowSeconds;
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "loadgen %6.1fs phase %s clients %d", nowSeconds, phase, clients));
        counts.forEach((c, v) -> {
            long[] before = last.getOrDefault(c, new long[4]);
            long okDelta = v[1] - before[1];
            double rtDelta = (v[3] - before[3]) / 1e6;
            b.append(String.format(Locale.ROOT, " | %s %.1f req/s mean %.0f ms", c, (v[0] - before[0]) / dt,
                    okDelta == 0 ? 0 : rtDelta / okDelta * 1000));
        });
        last.clear();
        last.putAll(new LinkedHashMap<>(counts));
        return b.toString();
    }
}
