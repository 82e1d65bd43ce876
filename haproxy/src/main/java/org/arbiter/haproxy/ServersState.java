package org.arbiter.haproxy;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parses HAProxy's {@code show servers state} (format version 1: a line {@code 1}, a header
 * {@code # be_id be_name srv_id srv_name ... srv_admin_state srv_uweight ...}, then one space-separated line
 * per server) into each server's administrative state and user weight, the settings the agent verifies.
 * ({@code show servers state} carries no {@code maxconn}; that is read back from {@code show stat}'s
 * {@code slim}.) Columns are found by name. Anything else is refused with {@link StatCsv.Malformed}
 * naming the line. Pure; stateless.
 */
public final class ServersState {

    /** {@code srv_admin_state} bits: forced maintenance (set by {@code set server … state maint}). */
    public static final int ADMIN_FORCED_MAINT = 0x01;
    /** Forced drain ({@code set server … state drain}). */
    public static final int ADMIN_FORCED_DRAIN = 0x08;

    private ServersState() {
    }

    /** One server of one backend. */
    public record Server(String backend, String server, int adminState, int userWeight) {
        /** The state the agent sets: MAINT, DRAIN or READY. */
        public Admin admin() {
            if ((adminState & ADMIN_FORCED_MAINT) != 0) {
                return Admin.MAINT;
            }
            return (adminState & ADMIN_FORCED_DRAIN) != 0 ? Admin.DRAIN : Admin.READY;
        }
    }

    /** The administrative states the agent sets ({@code set server B/S state ready|drain|maint}). */
    public enum Admin {
        READY("ready"), DRAIN("drain"), MAINT("maint");

        private final String word;

        Admin(String word) {
            this.word = word;
        }

        public String word() {
            return word;
        }
    }

    /** By backend, then server. */
    public static Map<String, Map<String, Server>> parse(String text) throws StatCsv.Malformed {
        if (text == null || text.isBlank()) {
            throw new StatCsv.Malformed("show servers state: empty answer (expected: '1' then a '# be_id ...' header)");
        }
        if (!text.endsWith("\n")) {
            throw new StatCsv.Malformed("show servers state: the answer stops mid-line (truncated?)");
        }
        String[] lines = text.split("\n", -1);
        if (!lines[0].strip().equals("1")) {
            throw new StatCsv.Malformed("show servers state line 1: '" + StatCsv.clip(lines[0])
                    + "' (expected: format version 1)");
        }
        if (lines.length < 2 || !lines[1].startsWith("# ")) {
            throw new StatCsv.Malformed("show servers state line 2: expected the '# be_id be_name ...' header");
        }
        String[] names = lines[1].substring(2).strip().split(" +");
        Map<String, Integer> col = new HashMap<>();
        for (int i = 0; i < names.length; i++) {
            col.putIfAbsent(names[i], i);
        }
        for (String r : new String[] {"be_name", "srv_name", "srv_admin_state", "srv_uweight"}) {
            if (!col.containsKey(r)) {
                throw new StatCsv.Malformed("show servers state header: no column " + r);
            }
        }
        int needed = Math.max(Math.max(col.get("be_name"), col.get("srv_name")),
                Math.max(col.get("srv_admin_state"), col.get("srv_uweight"))) + 1;
        Map<String, Map<String, Server>> out = new LinkedHashMap<>();
        for (int i = 2; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split(" +");
            if (f.length < needed) {
                throw new StatCsv.Malformed("show servers state line " + (i + 1) + ": " + f.length
                        + " fields (expected: at least " + needed + "; truncated?)");
            }
            int admin = integer(f[col.get("srv_admin_state")], "srv_admin_state", i + 1);
            int weight = integer(f[col.get("srv_uweight")], "srv_uweight", i + 1);
            String be = f[col.get("be_name")];
            String sv = f[col.get("srv_name")];
            out.computeIfAbsent(be, k -> new LinkedHashMap<>()).put(sv, new Server(be, sv, admin, weight));
        }
        return out;
    }

    private static int integer(String v, String name, int line) throws StatCsv.Malformed {
        try {
            int n = Integer.parseInt(v);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new StatCsv.Malformed("show servers state line " + line + ", " + name + ": '" + StatCsv.clip(v)
                    + "' (expected: a number >= 0)");
        }
    }
}
