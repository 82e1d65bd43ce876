package org.arbiter.haproxy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What HAProxy must be told so that its class backends enforce the allocation in force: for every
 * (class backend, server) the desired {@code maxconn}, {@code weight} and administrative state, compared
 * with what HAProxy reports ({@code show stat}'s {@code slim}, {@code show servers state}'s user weight and
 * admin state), and the Runtime API commands for the differences only.
 *
 * <p>The mapping of a cap N(g,c,s) (from {@link CapSplit}):
 * <ul>
 *   <li>N > 0: {@code maxconn N}, {@code weight min(N, 256)} — HAProxy's {@code leastconn} then picks the server
 *       with the fewest requests relative to its weight, i.e. to its cap, as Arbiter's gateway does;</li>
 *   <li>N = 0: {@code weight 0} (no new request goes there; HAProxy's {@code maxconn 0} would mean unlimited, so
 *       the limit is left at 1).</li>
 * </ul>
 * A server whose N(g,s) is 0 is set to {@code drain} in every class backend (no new requests, those in
 * flight finish), any other to {@code ready}. That is how power orders reach HAProxy: the GRM gives a server
 * it powers down N(g,s) = 0 from the moment it starts draining, and turns it off only once every gateway
 * reports cap 0 and nothing in flight there (the agent reports a drained server's cap as 0).
 *
 * <p>Comparing with what HAProxy reports each time (not with what was sent) is what makes a reload
 * ({@code -sf}: the new process starts from the file's values) or a lost command harmless: the next
 * period sends the difference again. Pure; stateless.
 */
public final class Reconciler {

    /** The server names commands are sent for (HAProxy's own rule for names; nothing that could end a command). */
    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[A-Za-z0-9._:-]+");

    /** HAProxy's largest server weight. */
    public static final int MAX_WEIGHT = 256;

    private Reconciler() {
    }

    /** The settings of one (backend, server). */
    public record Setting(int maxconn, int weight, ServersState.Admin admin) {
    }

    /** One Runtime API command for one (backend, server). */
    public record Command(String backend, String server, String text) {
    }

    /**
     * @param desired  per class backend name, per server, the desired settings
     * @param commands the differences, in backend then server order: state, then weight, then maxconn
     * @param problems what cannot be applied (a backend or server the allocation names that HAProxy lacks)
     * @param inForce  whether HAProxy already matches {@code desired} on every cell (no command needed)
     */
    public record Plan(Map<String, Map<String, Setting>> desired, List<Command> commands, List<String> problems,
                       boolean inForce) {
    }

    /** The desired setting for cap {@code cap} N(g,c,s) on a server whose N(g,s) is {@code serverCap}. */
    public static Setting setting(int cap, int serverCap) {
        ServersState.Admin admin = serverCap > 0 ? ServersState.Admin.READY : ServersState.Admin.DRAIN;
        return cap > 0 ? new Setting(cap, Math.min(cap, MAX_WEIGHT), admin) : new Setting(1, 0, admin);
    }

    /**
     * @param classes the cluster's classes (each is backend {@link HaproxyNames#backend})
     * @param caps    N(g,c,s) per class and server (a missing entry is 0)
     * @param serverCaps N(g,s) per server (a missing entry is 0)
     * @param stat    {@code show stat}
     * @param state   {@code show servers state}
     */
    public static Plan plan(List<String> classes, Map<String, Map<String, Integer>> caps, Map<String, Integer> serverCaps,
                            StatCsv.Table stat, Map<String, Map<String, ServersState.Server>> state) {
        Map<String, Map<String, Setting>> desired = new LinkedHashMap<>();
        List<Command> commands = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (String c : classes) {
            String backend = HaproxyNames.backend(c);
            Map<String, StatCsv.Row> rows = stat.proxies().get(backend);
            Map<String, Integer> classCaps = caps.getOrDefault(c, Map.of());
            if (rows == null) {
                problems.add("backend " + backend + " is not in HAProxy (expected: the configuration `arbiter haproxy "
                        + "config` writes; regenerate it and reload HAProxy)");
                continue;
            }
            classCaps.forEach((s, n) -> {
                if (n > 0 && !rows.containsKey(HaproxyNames.server(s))) {
                    problems.add("server " + backend + "/" + s + " is not in HAProxy but has " + n
                            + " slots (expected: the configuration `arbiter haproxy config` writes)");
                }
            });
            Map<String, Setting> cells = new LinkedHashMap<>();
            Map<String, ServersState.Server> backendState = state.getOrDefault(backend, Map.of());
            for (StatCsv.Row row : rows.values()) {
                if (row.isBackend() || row.isFrontend()) {
                    continue;
                }
                String s = row.server();
                if (!NAME.matcher(s).matches()) {
                    problems.add("server " + StatCsv.clip(backend + "/" + s) + ": not a name the agent sends commands "
                            + "for (expected: letters, digits, '.', '_', '-' or ':')");
                    continue;
                }
                Setting want = setting(classCaps.getOrDefault(s, 0), serverCaps.getOrDefault(s, 0));
                cells.put(s, want);
                ServersState.Server have = backendState.get(s);
                if (have == null) {
                    problems.add("server " + backend + "/" + s + " is in show stat but not in show servers state");
                    continue;
                }
                String target = backend + "/" + s;
                if (have.admin() != want.admin()) {
                    commands.add(new Command(backend, s, "set server " + target + " state " + want.admin().word()));
                }
                if (have.userWeight() != want.weight()) {
                    commands.add(new Command(backend, s, "set weight " + target + " " + want.weight()));
                }
                if (row.slim() != want.maxconn()) {
                    commands.add(new Command(backend, s, "set maxconn server " + target + " " + want.maxconn()));
                }
            }
            desired.put(backend, cells);
        }
        return new Plan(desired, commands, problems, commands.isEmpty());
    }
}
