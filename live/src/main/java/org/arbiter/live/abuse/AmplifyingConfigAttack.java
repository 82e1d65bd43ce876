package org.arbiter.live.abuse;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The amplifying configuration: one long string under an anchor and many aliases to it, each in
 * a place whose error message quotes the value ({@code servers[i].url}). The rig's configuration
 * file is replaced by it and the gateway sent SIGHUP (its reload path); the gateway's log is
 * watched for the reload's outcome (at most twice the check's timeout; the gateway's CPU time
 * meanwhile is recorded), an ordinary {@code GET /} is sent, and the file is restored.
 * Then {@code arbiter config check} runs on it as a child process (heap capped at 1 GiB, killed
 * after {@link AbuseSettings#checkTimeoutSeconds()}): exit code, wall time, peak resident memory.
 * Refused when the gateway keeps serving and the check exits 2 in under 2 s with under 300 MB
 * resident (issue 30's bounds).
 */
final class AmplifyingConfigAttack implements Attack {

    static final double CHECK_SECONDS_BOUND = 2;
    static final long CHECK_RSS_BOUND = 300L * 1000 * 1000;

    @Override
    public String name() {
        return "amplifying-config";
    }

    @Override
    public String what() {
        return "a config with a long anchored string and many aliases to it: SIGHUP to the gateway, and config check";
    }

    @Override
    public String gateway() {
        return AbuseRig.PLAIN;
    }

    @Override
    public AttackOutcome run(Target target, AbuseSettings s) throws Exception {
        AbuseRig rig = target.rig();
        Path amplified = rig.dir().resolve("amplifying.yaml");
        write(amplified, s.amplifyBytes(), s.amplifyAliases());
        List<String> details = new ArrayList<>();
        details.add(String.format(Locale.ROOT, "%d-byte string, %d aliases, file %d bytes", s.amplifyBytes(),
                s.amplifyAliases(), Files.size(amplified)));

        // The running gateway: SIGHUP with the file in place of its configuration.
        Path log = rig.log(target.gateway());
        long mark = GatewayLog.mark(log);
        long pid = rig.pid(target.gateway());
        double cpuBefore = ProcSampler.cpuSeconds(pid);
        double waitSeconds = 2 * s.checkTimeoutSeconds();
        long hupAt = System.nanoTime();
        String outcome;
        try {
            Files.copy(amplified, rig.configFile(), StandardCopyOption.REPLACE_EXISTING);
            rig.signal(target.gateway(), "HUP");
            outcome = awaitReloadLine(log, mark, waitSeconds);
        } finally {
            rig.restoreConfig();
        }
        double waited = (System.nanoTime() - hupAt) / 1e9;
        double cpu = ProcSampler.cpuSeconds(pid) - cpuBefore;
        int probe = target.probe(s.requestTimeoutSeconds());
        boolean alive = rig.alive(target.gateway());
        int applied = GatewayLog.appliedSince(log, mark);
        details.add(String.format(Locale.ROOT, "gateway log after SIGHUP: %s (after %.1f s; the gateway used %.1f s of"
                + " CPU meanwhile)", outcome == null ? "nothing about the reload" : outcome, waited, cpu));
        Verdict serving = new Verdict("gateway keeps serving after SIGHUP, on its old configuration",
                alive && probe == 200 && applied == 0, "GET / after SIGHUP: " + (probe < 0 ? "no answer" : probe)
                + "; process " + (alive ? "running" : "ended") + "; configurations applied: " + applied);

        // config check as its own process.
        Check c = check(rig, amplified, s.checkTimeoutSeconds());
        details.add(String.format(Locale.ROOT, "config check: %s after %.1f s, peak RSS %d MiB; output: %s",
                c.exit < 0 ? "killed" : "exit " + c.exit, c.seconds, c.peakRssBytes >> 20, c.firstLine));
        Verdict check = new Verdict("config check exits 2 in under 2 s with under 300 MB resident",
                c.exit == 2 && c.seconds < CHECK_SECONDS_BOUND && c.peakRssBytes < CHECK_RSS_BOUND,
                String.format(Locale.ROOT, "%s after %.1f s, peak %d MB resident", c.exit < 0 ? "killed" : "exit " + c.exit,
                        c.seconds, c.peakRssBytes / 1_000_000));
        Verdict refused = new Verdict(Verdict.ATTACK_REFUSED, serving.met() && check.met(),
                "gateway serving: " + serving.met() + "; check bounded: " + check.met());
        int refusedCount = (serving.met() ? 1 : 0) + (check.met() ? 1 : 0);
        return new AttackOutcome(2, refusedCount, 2 - refusedCount, Map.of(), List.of(), details,
                List.of(refused, serving, check));
    }

    /** Writes the amplifying YAML: {@code servers[0].url: &big "AAA…"} and {@code aliases} more servers with {@code url: *big}. */
    static void write(Path file, int bytes, int aliases) throws IOException {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write("# issue 30 item 5: one long string, many aliases to it, each quoted by its error\n");
            w.write("classes:\n  - {name: basic, target: 5s, default: true}\nservers:\n  - {id: s0, url: &big \"");
            char[] chunk = new char[8192];
            Arrays.fill(chunk, 'A');
            for (int left = bytes; left > 0; left -= chunk.length) {
                w.write(chunk, 0, Math.min(left, chunk.length));
            }
            w.write("\", concurrency: 1}\n");
            for (int i = 1; i <= aliases; i++) {
                w.write("  - {id: s" + i + ", url: *big, concurrency: 1}\n");
            }
        }
    }

    /**
     * The first line the gateway logged after {@code mark} about a reload (a SIGHUP error, an
     * OutOfMemoryError, or a configuration applied), or null if none came within {@code seconds}.
     */
    private static String awaitReloadLine(Path log, long mark, double seconds) throws Exception {
        long until = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < until) {
            for (String line : GatewayLog.linesSince(log, mark)) {
                if (line.contains("SIGHUP") || line.contains("OutOfMemoryError")
                        || GatewayLog.APPLIED.matcher(line).find()) {
                    return GatewayLog.cut(line, 300);
                }
            }
            Thread.sleep(100);
        }
        return null;
    }

    private record Check(int exit, double seconds, long peakRssBytes, String firstLine) {
    }

    /** Runs {@code arbiter config check FILE} with a 1 GiB heap; samples its resident memory every 100 ms. */
    private static Check check(AbuseRig rig, Path file, double timeoutSeconds) throws Exception {
        List<String> cmd = new ArrayList<>(rig.settings().launcher());
        cmd.add(1, "-Xmx1g");
        cmd.addAll(List.of("config", "check", file.toString()));
        Path out = rig.dir().resolve("logs").resolve("config-check.log");
        long start = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        long peak = 0;
        long until = start + (long) (timeoutSeconds * 1e9);
        while (p.isAlive() && System.nanoTime() < until) {
            peak = Math.max(peak, ProcSampler.rssBytes(p.pid()));
            p.waitFor(100, TimeUnit.MILLISECONDS);
        }
        int exit;
        if (p.isAlive()) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            exit = -1;
        } else {
            exit = p.exitValue();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        String first = "";
        try (var lines = Files.lines(out, StandardCharsets.UTF_8)) {
            first = lines.findFirst().orElse("");
        } catch (IOException | java.io.UncheckedIOException e) {
            first = "(unreadable: " + e.getMessage() + ")";
        }
        if (first.length() > 200) {
            first = first.substring(0, 200) + "…";
        }
        return new Check(exit, seconds, peak, first);
    }
}
