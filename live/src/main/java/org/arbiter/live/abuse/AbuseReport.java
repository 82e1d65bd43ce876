package org.arbiter.live.abuse;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What an abuse campaign measured: one row per run (the baselines without an attack first), each
 * with the attack's own counts, the ordinary client's tallies beside the same gateway's baseline,
 * the gateway's resources, and the verdicts computed from them. result.json, abuse.md and the test
 * all read this record. Immutable.
 *
 * @param settings what the campaign was sized by (its launcher left out)
 * @param rows     one per run, in the order they ran
 */
public record AbuseReport(Sizes settings, List<Row> rows) {

    /** Descriptors above the baseline that still count as "back to baseline" (log files, a pooled connection). */
    public static final int FD_SLACK = 4;

    public AbuseReport {
        requireNonNull(settings, "settings");
        rows = List.copyOf(requireNonNull(rows, "rows"));
    }

    /** {@link AbuseSettings} without the launcher (a machine's paths do not belong in a result). */
    public record Sizes(int connections, double idleTimeoutSeconds, double closeBoundSeconds, double beforeSeconds,
                        double settleSeconds, double baselineSeconds, int clientThreads, double requestTimeoutSeconds,
                        long maxBodyBytes, double slowDemandSeconds, int pipelined, int reloads, int amplifyBytes,
                        int amplifyAliases, double checkTimeoutSeconds, long memoryBoundBytes, int h2Connections,
                        int h2Streams, long h2BodyBytes, double h2SendSeconds, int wsTunnels) {

        static Sizes of(AbuseSettings s) {
            return new Sizes(s.connections(), s.idleTimeoutSeconds(), s.closeBoundSeconds(), s.beforeSeconds(),
                    s.settleSeconds(), s.baselineSeconds(), s.clientThreads(), s.requestTimeoutSeconds(), s.maxBodyBytes(),
                    s.slowDemandSeconds(), s.pipelined(), s.reloads(), s.amplifyBytes(), s.amplifyAliases(),
                    s.checkTimeoutSeconds(), s.memoryBoundBytes(), s.h2Connections(), s.h2Streams(), s.h2BodyBytes(),
                    s.h2SendSeconds(), s.wsTunnels());
        }
    }

    /**
     * One run.
     *
     * @param attack              the attack's name ("none" for a baseline)
     * @param what                what it does
     * @param gateway             the gateway it targeted
     * @param outcome             its own counts
     * @param clientWithoutAttack the ordinary client against the same gateway in the baseline run
     * @param clientDuring        the ordinary client while the attack ran
     * @param clientAfter         the ordinary client in the settle time after it
     * @param resources           the gateway's resident memory and descriptors
     * @param verdicts            the general criteria (client, descriptors, memory), then the attack's own
     * @param error               why the attack itself failed to run, or "" (its outcome is then empty)
     */
    public record Row(String attack, String what, String gateway, AttackOutcome outcome,
                      ClientTally clientWithoutAttack, ClientTally clientDuring,
                      ClientTally clientAfter, Resources resources, List<Verdict> verdicts,
                      String error) {

        public Row {
            verdicts = List.copyOf(verdicts);
        }

        /** Whether the criterion named {@code criterion} was met (false if this row has no such verdict). */
        public boolean met(String criterion) {
            return verdicts.stream().anyMatch(v -> v.criterion().equals(criterion) && v.met());
        }
    }

    /** A row with the general verdicts computed from its measurements, then the attack's own. */
    static Row row(Attack attack, AttackOutcome outcome, ClientTally without,
                   Map<ProcSampler.Phase, ClientTally> client, Resources r, AbuseSettings s,
                   String error) {
        ClientTally during = client.getOrDefault(ProcSampler.Phase.DURING, ClientTally.EMPTY);
        ClientTally after = client.getOrDefault(ProcSampler.Phase.AFTER, ClientTally.EMPTY);
        List<Verdict> v = new ArrayList<>();
        v.add(new Verdict(Verdict.CLIENT_ANSWERED, during.fullyAnswered() && after.fullyAnswered(),
                "during: " + describe(during) + "; after: " + describe(after)));
        v.add(new Verdict(Verdict.FDS_BACK, r.afterFds() >= 0 && r.baselineFds() >= 0
                && r.afterFds() <= r.baselineFds() + FD_SLACK, String.format(Locale.ROOT,
                "baseline %d, peak %d, after %s (+%d allowed)", r.baselineFds(), r.peakFds(),
                r.afterFds() < 0 ? "none: the process was not running" : Integer.toString(r.afterFds()), FD_SLACK)));
        v.add(new Verdict(Verdict.MEMORY_BOUNDED, r.peakRssBytes() >= 0 && r.baselineRssBytes() >= 0
                && r.peakRssBytes() - r.baselineRssBytes() <= s.memoryBoundBytes(), String.format(Locale.ROOT,
                "baseline %d MiB, peak %d MiB (bound: baseline + %d MiB)", r.baselineRssBytes() >> 20,
                r.peakRssBytes() >> 20, s.memoryBoundBytes() >> 20)));
        if (!error.isEmpty()) {
            v.add(new Verdict(Verdict.ATTACK_REFUSED, false, "the attack failed to run: " + error));
        }
        v.addAll(outcome.verdicts());
        return new Row(attack.name(), attack.what(), attack.gateway(), outcome, without, during, after, r, v, error);
    }

    static String describe(ClientTally t) {
        return String.format(Locale.ROOT, "%d sent, answers %s, %d without answer, p99 %.1f ms", t.sent(), t.statuses(),
                t.failures(), t.p99Millis());
    }

    /** The Markdown table (one row per run) and, below it, every verdict's figures. */
    public String table() {
        StringBuilder b = new StringBuilder();
        b.append("| attack | gw | attempted | refused/closed | accepted/open | client during: sent, non-2xx, no answer"
                + " | p99 ms (no attack) | RSS MiB base/peak/after | fds base/peak/after | verdicts |\n");
        b.append("|---|---|---:|---:|---:|---|---|---|---|---|\n");
        for (Row r : rows) {
            ClientTally d = r.clientDuring();
            int non2xx = d.statuses().entrySet().stream().filter(e -> e.getKey() / 100 != 2).mapToInt(Map.Entry::getValue)
                    .sum();
            Resources x = r.resources();
            b.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %d | %d, %d, %d | %.1f (%.1f) | %d/%d/%d | %d/%d/%d | %s |%n",
                    r.attack(), r.gateway(), r.outcome().attempted(), r.outcome().refused(), r.outcome().accepted(),
                    d.sent(), non2xx, d.failures(), d.p99Millis(), r.clientWithoutAttack().p99Millis(),
                    x.baselineRssBytes() >> 20, x.peakRssBytes() >> 20, x.afterRssBytes() >> 20, x.baselineFds(),
                    x.peakFds(), x.afterFds(), marks(r)));
        }
        b.append('\n');
        for (Row r : rows) {
            if (r.attack().equals("none") && r.error().isEmpty()) {
                continue; // a baseline's figures are all in the table
            }
            b.append("- **").append(r.attack()).append("** (").append(r.what()).append(")");
            if (!r.error().isEmpty()) {
                b.append(" — failed to run: ").append(r.error());
            }
            b.append('\n');
            for (Verdict v : r.verdicts()) {
                b.append("  - ").append(v.met() ? "yes" : "NO").append(": ").append(v.criterion()).append(" — ")
                        .append(v.measured()).append('\n');
            }
            for (String detail : r.outcome().details()) {
                b.append("  - ").append(detail).append('\n');
            }
            if (!r.outcome().wire().isEmpty()) {
                b.append("  - answers on the wire: ").append(String.join(" ", r.outcome().wire())).append('\n');
            }
        }
        return b.toString();
    }

    private static String marks(Row r) {
        List<String> m = new ArrayList<>();
        for (Verdict v : r.verdicts()) {
            String name = switch (v.criterion()) {
                case Verdict.ATTACK_REFUSED -> "refused";
                case Verdict.CLIENT_ANSWERED -> "client";
                case Verdict.FDS_BACK -> "fds";
                case Verdict.MEMORY_BOUNDED -> "memory";
                default -> null; // the attack's finer criteria are listed below the table
            };
            if (name != null) {
                m.add(name + (v.met() ? " yes" : " NO"));
            }
        }
        return String.join(", ", m);
    }
}
