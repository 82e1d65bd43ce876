package org.arbiter.gateway.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The benchmark's Markdown: one table per protocol × connections with a row per target and run,
 * then per target the median and the min–max spread, then the gateway / HAProxy ratios.
 */
final class BenchReport {

    private BenchReport() {
    }

    static String markdown(GatewayBenchmark.Options o, List<GatewayBenchmark.Row> rows, String started, String envoy,
            Path dir) {
        StringBuilder b = new StringBuilder();
        b.append("Started ").append(started).append("; ").append(Runtime.getRuntime().availableProcessors())
                .append(" cores shared by wrk (2 threads), the backend (").append(o.backend().equals("nginx")
                        ? "NGINX return 200, 1 worker, its own process: the pass-through set-up"
                        : "1 Netty thread, in the benchmark's JVM").append(") and the proxy")
                .append(" under test. ").append(o.duration()).append(" s measured after ").append(o.warmup())
                .append(" s of warm-up per target and connection count (and ").append(o.initialWarmup())
                .append(" s once per target after it started); ").append(o.runs()).append(" run(s); proxies' threads ")
                .append(o.threads()).append("; cap ").append(o.cap()).append(", queue ").append(o.queue())
                .append(". CPU: the proxy process's utime+stime from /proc (NGINX: master and workers) over the measured")
                .append(" run, per 100 000 requests answered. Machine busy: all cores, from /proc/stat. Files: ")
                .append(dir).append(".\n\n");
        if (envoy != null) {
            b.append("Envoy: ").append(envoy).append(".\n\n");
        }
        List<String> summary = new ArrayList<>();
        for (boolean tls : o.tls()) {
            for (int c : o.connections()) {
                List<GatewayBenchmark.Row> group = rows.stream()
                        .filter(r -> r.tls() == tls && r.connections() == c).toList();
                if (group.isEmpty()) {
                    continue;
                }
                String title = (tls ? "HTTP/1.1 over TLS" : "HTTP/1.1") + ", " + c + " connections";
                b.append("### ").append(title).append("\n\n");
                b.append("| target | run | requests/s | p50 | p99 | p99.9 | CPU s / 100k req | non-2xx | socket errors "
                        + "| machine busy | core lock contended / acquired |\n");
                b.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
                Map<String, List<GatewayBenchmark.Row>> byTarget = new LinkedHashMap<>();
                for (GatewayBenchmark.Row r : group) {
                    byTarget.computeIfAbsent(r.label(), k -> new ArrayList<>()).add(r);
                }
                for (Map.Entry<String, List<GatewayBenchmark.Row>> e : byTarget.entrySet()) {
                    for (GatewayBenchmark.Row r : e.getValue()) {
                        b.append(String.format(Locale.ROOT, "| %s | %d | %.0f | %s | %s | %s | %s | %d | %d | %.0f %% | %s |%n",
                                e.getKey(), r.run(), r.wrk().requestsPerSecond(), GatewayBenchmark.latency(r.wrk().p50()),
                                GatewayBenchmark.latency(r.wrk().p99()), GatewayBenchmark.latency(r.wrk().p999()),
                                num(r.cpuPer100k(), "%.3f"), r.wrk().non2xx(), r.wrk().errors(), r.machineBusy() * 100,
                                Double.isNaN(r.contention()) ? "—" : String.format(Locale.ROOT, "%.4f (%.0f / %.0f)",
                                        r.contention(), r.lockContended(), r.lockAcquired())));
                    }
                    // a run that answered nothing has no latency or CPU per request: listed above, left out here
                    List<GatewayBenchmark.Row> rs = e.getValue().stream().filter(r -> r.wrk().requests() > 0).toList();
                    int failed = e.getValue().size() - rs.size();
                    b.append(String.format(Locale.ROOT, "| %s | **median** (min–max)%s | **%s** | %s | %s | %s | **%s** | %s | %s | %s %% | %s |%n",
                            e.getKey(), failed == 0 ? "" : " of " + rs.size() + " runs; " + failed + " answered nothing",
                            spread(rs, r -> r.wrk().requestsPerSecond(), "%.0f"),
                            spreadLatency(rs, r -> r.wrk().p50()), spreadLatency(rs, r -> r.wrk().p99()),
                            spreadLatency(rs, r -> r.wrk().p999()), spread(rs, GatewayBenchmark.Row::cpuPer100k, "%.3f"),
                            spread(rs, r -> r.wrk().non2xx(), "%.0f"), spread(rs, r -> r.wrk().errors(), "%.0f"),
                            spread(rs, r -> r.machineBusy() * 100, "%.0f"),
                            spread(rs, GatewayBenchmark.Row::contention, "%.4f")));
                }
                if (tls) {
                    b.append("\n(backend direct: plain HTTP only; the backend does not speak TLS.)\n");
                }
                String ratio = ratios(group);
                if (ratio != null) {
                    b.append("\nGateway / HAProxy: ").append(ratio).append("\n");
                    summary.add("| " + title + " | " + ratio.replace("; CPU", " | CPU").replace("requests/s ", "")
                            .replace("CPU s/100k ", "") + " |");
                }
                b.append("\n");
            }
        }
        if (!summary.isEmpty()) {
            b.append("### Gateway / HAProxy\n\n");
            b.append("| protocol, connections | requests/s: ratio of medians (per-run ratios) "
                    + "| CPU s / 100k: ratio of medians (per-run ratios) |\n| --- | ---: | ---: |\n");
            summary.forEach(s -> b.append(s).append('\n'));
            b.append('\n');
        }
        return b.toString();
    }

    /** "requests/s X (a–b); CPU s/100k Y (a–b)": ratios of the medians, then the range of per-run ratios. */
    private static String ratios(List<GatewayBenchmark.Row> group) {
        List<GatewayBenchmark.Row> gw = group.stream()
                .filter(r -> r.kind() == Target.Kind.GATEWAY && r.wrk().requests() > 0).toList();
        List<GatewayBenchmark.Row> ha = group.stream()
                .filter(r -> r.kind() == Target.Kind.HAPROXY && r.wrk().requests() > 0).toList();
        if (gw.isEmpty() || ha.isEmpty()) {
            return null;
        }
        List<Double> rps = new ArrayList<>();
        List<Double> cpu = new ArrayList<>();
        for (GatewayBenchmark.Row g : gw) {
            for (GatewayBenchmark.Row h : ha) {
                if (h.run() == g.run()) {
                    rps.add(g.wrk().requestsPerSecond() / h.wrk().requestsPerSecond());
                    cpu.add(g.cpuPer100k() / h.cpuPer100k());
                }
            }
        }
        double rpsOfMedians = median(values(gw, r -> r.wrk().requestsPerSecond()))
                / median(values(ha, r -> r.wrk().requestsPerSecond()));
        double cpuOfMedians = median(values(gw, GatewayBenchmark.Row::cpuPer100k))
                / median(values(ha, GatewayBenchmark.Row::cpuPer100k));
        return String.format(Locale.ROOT, "requests/s **%.2f** (%s); CPU s/100k **%.2f** (%s)", rpsOfMedians,
                range(rps), cpuOfMedians, range(cpu));
    }

    private static String range(List<Double> v) {
        if (v.isEmpty()) {
            return "no run of both answered";
        }
        double min = v.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        double max = v.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        return String.format(Locale.ROOT, "%.2f–%.2f", min, max);
    }

    private static List<Double> values(List<GatewayBenchmark.Row> rows, ToDoubleFunction<GatewayBenchmark.Row> f) {
        return rows.stream().map(r -> f.applyAsDouble(r)).filter(d -> !Double.isNaN(d)).sorted().toList();
    }

    static double median(List<Double> sorted) {
        int n = sorted.size();
        if (n == 0) {
            return Double.NaN;
        }
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static String spread(List<GatewayBenchmark.Row> rows, ToDoubleFunction<GatewayBenchmark.Row> f, String fmt) {
        List<Double> v = values(rows, f);
        if (v.isEmpty()) {
            return "—";
        }
        return String.format(Locale.ROOT, fmt + " (" + fmt + "–" + fmt + ")", median(v), v.get(0), v.get(v.size() - 1));
    }

    private static String spreadLatency(List<GatewayBenchmark.Row> rows, ToDoubleFunction<GatewayBenchmark.Row> f) {
        List<Double> v = values(rows, f);
        if (v.isEmpty()) {
            return "—";
        }
        return GatewayBenchmark.latency(median(v)) + " (" + GatewayBenchmark.latency(v.get(0)) + "–"
                + GatewayBenchmark.latency(v.get(v.size() - 1)) + ")";
    }

    private static String num(double v, String fmt) {
        return Double.isNaN(v) ? "—" : String.format(Locale.ROOT, fmt, v);
    }
}
