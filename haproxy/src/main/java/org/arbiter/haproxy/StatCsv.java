package org.arbiter.haproxy;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses the answer of HAProxy's {@code show stat} (the CSV of the Runtime API: a header line
 * {@code # pxname,svname,qcur,...}, then one line per frontend, backend and server) into the rows the
 * agent reads. Columns are found by name, so field order and extra fields do not matter; the columns in
 * {@link #REQUIRED} must be present. Empty numeric fields (HAProxy leaves a field empty where it does not
 * apply, e.g. {@code slim} of a server without {@code maxconn}) read as {@link #ABSENT}.
 *
 * <p>Anything else — no header, a row with fewer fields than the header, a number that is not one, a
 * negative counter, an answer that stops mid-line — is refused with {@link Malformed}, whose message
 * names the line and the field. Pure; stateless.
 */
public final class StatCsv {

    /** A numeric field HAProxy left empty. */
    public static final long ABSENT = -1;

    /** The columns the agent needs. */
    public static final List<String> REQUIRED = List.of("pxname", "svname", "qcur", "scur", "slim", "stot", "status",
            "weight", "hrsp_1xx", "hrsp_2xx", "hrsp_3xx", "hrsp_4xx", "hrsp_5xx", "hrsp_other", "econ", "eresp");

    /** The largest answer parsed (a cluster of 100 classes × 1 000 servers writes about 40 MB). */
    public static final int MAX_CHARS = 64 * 1024 * 1024;

    private StatCsv() {
    }

    /** An answer that is not a {@code show stat} table. */
    public static final class Malformed extends Exception {
        public Malformed(String message) {
            super(message);
        }
    }

    /**
     * One line: a backend ({@code server} = {@code BACKEND}), frontend or server.
     *
     * @param qcur      requests queued (backend: in the backend's queue and its servers')
     * @param scur      requests in progress
     * @param slim      the session limit ({@code maxconn}); {@link #ABSENT} when unlimited
     * @param stot      cumulative requests (a backend: assigned to it; a server: sent to it)
     * @param status    {@code UP}, {@code DOWN}, {@code DRAIN}, {@code MAINT}, {@code no check}, ...
     * @param weight    the effective weight
     * @param responses cumulative HTTP responses of any status
     * @param errors5xx cumulative 5xx responses
     * @param connectErrors cumulative connection errors to servers ({@code econ})
     * @param responseErrors cumulative response errors ({@code eresp})
     */
    public record Row(String proxy, String server, long qcur, long scur, long slim, long stot, String status,
                      long weight, long responses, long errors5xx, long connectErrors, long responseErrors) {

        public boolean isBackend() {
            return "BACKEND".equals(server);
        }

        public boolean isFrontend() {
            return "FRONTEND".equals(server);
        }
    }

    /** The rows by proxy, then by server name ({@code BACKEND}, {@code FRONTEND} included). */
    public record Table(Map<String, Map<String, Row>> proxies) {
        public Table {
            proxies = Map.copyOf(proxies);
        }

        public Row row(String proxy, String server) {
            Map<String, Row> p = proxies.get(proxy);
            return p == null ? null : p.get(server);
        }
    }

    /** Parses a whole answer. */
    public static Table parse(String text) throws Malformed {
        if (text == null || text.isEmpty()) {
            throw new Malformed("show stat: empty answer (expected: a CSV header '# pxname,svname,...')");
        }
        if (text.length() > MAX_CHARS) {
            throw new Malformed("show stat: " + text.length() + " characters (expected: at most " + MAX_CHARS + ")");
        }
        String[] lines = text.split("\n", -1);
        String header = lines[0].strip();
        if (!header.startsWith("# ")) {
            throw new Malformed("show stat line 1: '" + clip(header)
                    + "' (expected: the CSV header '# pxname,svname,...'; an error from the socket, or not a stats socket)");
        }
        String[] names = header.substring(2).split(",", -1);
        Map<String, Integer> col = new HashMap<>();
        for (int i = 0; i < names.length; i++) {
            if (!names[i].isEmpty()) {
                col.putIfAbsent(names[i], i);
            }
        }
        for (String r : REQUIRED) {
            if (!col.containsKey(r)) {
                throw new Malformed("show stat header: no column " + r + " (expected: HAProxy 2.6 or later)");
            }
        }
        int needed = REQUIRED.stream().mapToInt(col::get).max().orElse(0) + 1;
        if (!text.endsWith("\n")) {
            throw new Malformed("show stat: the answer stops mid-line (line " + lines.length
                    + "; expected: lines ending in a newline — truncated?)");
        }
        Map<String, Map<String, Row>> proxies = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split(",", -1);
            if (f.length < needed) {
                throw new Malformed("show stat line " + (i + 1) + ": " + f.length + " fields (expected: at least "
                        + needed + " as the header names; truncated?)");
            }
            String px = f[col.get("pxname")];
            String sv = f[col.get("svname")];
            if (px.isEmpty() || sv.isEmpty()) {
                throw new Malformed("show stat line " + (i + 1) + ": empty pxname or svname");
            }
            Field at = new Field(f, col, i + 1);
            long responses = 0;
            for (String h : List.of("hrsp_1xx", "hrsp_2xx", "hrsp_3xx", "hrsp_4xx", "hrsp_5xx", "hrsp_other")) {
                responses += Math.max(0, at.number(h));
            }
            Row row = new Row(px, sv, at.number("qcur"), at.number("scur"), at.number("slim"), at.number("stot"),
                    f[col.get("status")], at.number("weight"), responses, Math.max(0, at.number("hrsp_5xx")),
                    Math.max(0, at.number("econ")), Math.max(0, at.number("eresp")));
            proxies.computeIfAbsent(px, k -> new LinkedHashMap<>()).put(sv, row);
        }
        return new Table(proxies);
    }

    private record Field(String[] f, Map<String, Integer> col, int line) {
        long number(String name) throws Malformed {
            String v = f[col.get(name)];
            if (v.isEmpty()) {
                return ABSENT;
            }
            try {
                long n = Long.parseLong(v);
                if (n < 0) {
                    throw new Malformed("show stat line " + line + ", " + name + ": " + clip(v) + " (expected: >= 0)");
                }
                return n;
            } catch (NumberFormatException e) {
                throw new Malformed("show stat line " + line + ", " + name + ": '" + clip(v) + "' (expected: a number)");
            }
        }
    }

    static String clip(String s) {
        String t = s.replaceAll("[\\p{Cntrl}]", "?");
        return t.length() <= 80 ? t : t.substring(0, 80) + "…";
    }
}
