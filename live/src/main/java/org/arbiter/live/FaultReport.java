package org.arbiter.live;

import org.arbiter.sim.experiment.*;
import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Locale;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What {@code arbiter experiment faults} measured: one {@link Row} per fault, written as
 * result.json (Jackson serialises the records as they are) and as a Markdown table.
 *
 * @param faults        one row per fault, in the order run
 * @param warmupSeconds load before each fault
 * @param recoverySeconds load after each fault's action completed (at least)
 * @param stopSeconds   how long a simserver stays SIGSTOPped
 * @param clients       closed-loop clients spread over the two gateways
 * @param thinkSeconds  their mean think time
 * @param wallSeconds   the whole campaign, start-up included
 */
public record FaultReport(List<Row> faults, double warmupSeconds, double recoverySeconds, double stopSeconds, int clients,
                          double thinkSeconds, double wallSeconds) {

    public FaultReport {
        faults = List.copyOf(requireNonNull(faults, "faults"));
    }

    /**
     * One fault under load.
     *
     * @param fault               the fault's id ({@link FaultCampaign.Fault#id()})
     * @param action              what was done, with the process and pid
     * @param loadSeconds         how long the load ran around it
     * @param inFlightAtFault     the client's requests in flight when the fault began (both gateways)
     * @param sent                requests sent (each counted once, failovers included)
     * @param answered            requests that got an HTTP answer, any status
     * @param lost                sent − answered
     * @param statuses            answers per HTTP status
     * @param connectionErrors    requests whose connection failed with no target left to fail over to
     * @param timedOut            requests with no answer within the client's time-out
     * @param unfinished          requests still unanswered when the load ended (after its grace)
     * @param failovers           requests the client moved to the other gateway (never answered where sent first)
     * @param failoversInFlight   of those, the ones whose first connection had been established (the request
     *                            was in flight there when it closed; the rest were refused)
     * @param leaderBefore        the GRM leading when the fault began ("" when none)
     * @param leaderAfter         the GRM leading when the load ended ("" when none)
     * @param newLeaderSeconds    from the fault to a GRM other than the victim reporting Leader (null: not a
     *                            leader fault, or none seen)
     * @param leaderlessSeconds   time in the window with no GRM reporting Leader
     * @param dualLeaderSeconds   time in the window with both GRMs reporting Leader
     * @param nextAllocationSeconds from the fault to a gateway's /allocation version growing (null: none seen)
     * @param allocationGapSeconds the longest time without a version increase, from the fault to the end of the load
     * @param allocationVersionBefore the version at the fault
     * @param allocationVersionAfter  the version when the load ended
     * @param drain               what the SIGTERMed gateway's drain did, from its own log (null for the
     *                            other faults, or when it logged none)
     */
    public record Row(String fault, String action, double loadSeconds, int inFlightAtFault, long sent, long answered, long lost,
                      SortedMap<Integer, Long> statuses, long connectionErrors, long timedOut, long unfinished, long failovers,
                      long failoversInFlight,
                      String leaderBefore, String leaderAfter, Double newLeaderSeconds, double leaderlessSeconds,
                      double dualLeaderSeconds, Double nextAllocationSeconds, double allocationGapSeconds,
                      long allocationVersionBefore,
                      long allocationVersionAfter, Drain drain) {

        public Row {
            requireNonNull(fault, "fault");
            requireNonNull(action, "action");
            statuses = new TreeMap<>(requireNonNull(statuses, "statuses"));
            if (lost != sent - answered) {
                throw new IllegalArgumentException("lost: " + lost + " (expected: sent " + sent + " − answered " + answered + ")");
            }
            if (lost != connectionErrors + timedOut + unfinished) {
                throw new IllegalArgumentException("lost: " + lost + " (expected: connectionErrors + timedOut + unfinished = "
                        + (connectionErrors + timedOut + unfinished) + ")");
            }
            long byStatus = statuses.values().stream().mapToLong(Long::longValue).sum();
            if (byStatus != answered) {
                throw new IllegalArgumentException("statuses: " + statuses + " (expected: summing to answered " + answered + ")");
            }
        }

        /** Answers with a status other than 2xx. */
        public long errorAnswers() {
            return statuses.entrySet().stream().filter(e -> e.getKey() < 200 || e.getKey() > 299)
                    .mapToLong(java.util.Map.Entry::getValue).sum();
        }
    }

    /**
     * A gateway's drain as it logged it ({@code Gateway.describe}): the requests it held when the drain
     * began and those that arrived on its open connections afterwards, and how each was answered. Every
     * request the gateway read is in held + arrived; all of them answered by servers (none 503 at the
     * deadline, none cut) means nothing it accepted was lost or left to be resent.
     */
    public record Drain(long held, long arrived, long served, long refused, long cut) {

        private static final java.util.regex.Pattern LINE = java.util.regex.Pattern.compile(
                "(\\d+) held at the start, (\\d+) arrived on open connections, (\\d+) answered by servers,"
                        + " (\\d+) answered 503 at the deadline, (\\d+) cut mid-response");

        /** The drain in a log line, or null when the line has none. */
        public static Drain parse(String line) {
            java.util.regex.Matcher m = LINE.matcher(requireNonNull(line, "line"));
            if (!m.find()) {
                return null;
            }
            return new Drain(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
                    Long.parseLong(m.group(4)), Long.parseLong(m.group(5)));
        }

        /** Every request the gateway read was answered by a server. */
        public boolean answeredAll() {
            return served == held + arrived && refused == 0 && cut == 0;
        }
    }

    /** The table, one line per fault (Markdown; readable as plain text). */
    public String table() {
        StringBuilder b = new StringBuilder();
        b.append("| fault | sent | answered | lost | statuses | conn. errors | timed out | failovers (in flight) | new leader | leaderless"
                + " | next allocation | allocation gap | drain: read / served / 503 / cut |\n");
        b.append("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
        for (Row r : faults) {
            String statuses = r.statuses().entrySet().stream().map(e -> e.getKey() + "×" + e.getValue())
                    .collect(Collectors.joining(" "));
            Drain d = r.drain();
            String drain = d == null ? "–" : d.held() + d.arrived() + " / " + d.served() + " / " + d.refused() + " / " + d.cut();
            b.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %s | %d | %d | %d (%d) | %s | %.1f s | %s | %.1f s | %s |%n", r.fault(),
                    r.sent(), r.answered(), r.lost(), statuses.isEmpty() ? "–" : statuses, r.connectionErrors(), r.timedOut(),
                    r.failovers(), r.failoversInFlight(), seconds(r.newLeaderSeconds()), r.leaderlessSeconds(), seconds(r.nextAllocationSeconds()),
                    r.allocationGapSeconds(), drain));
        }
        return b.toString();
    }

    private static String seconds(Double s) {
        return s == null ? "–" : String.format(Locale.ROOT, "%.1f s", s);
    }
}
