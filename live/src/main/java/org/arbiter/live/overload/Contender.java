package org.arbiter.live.overload;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What stands between the clients and the simserver in one overload run (docs/performance.md, "Overload"). */
public enum Contender {
    /** Arbiter's gateway with the GRM (over the embedded broker) and the local admission path. */
    GRM("arbiter-grm", "Arbiter, GRM + local admission"),
    /** The same without the local admission path: the GRM, caps and queues only. */
    GRM_QUEUE("arbiter-grm-queue", "Arbiter, GRM, queue only"),
    /** Arbiter's gateway alone, N(g,s) fixed at the knee, no admission path. */
    STATIC("arbiter-static", "Arbiter, static cap at the knee"),
    /** Arbiter's gateway alone, the server's cap adapted by concurrency-limits' Gradient2. */
    GRADIENT2("arbiter-gradient2", "Arbiter, Gradient2 limit"),
    /** Arbiter's gateway alone, the server's cap adapted by concurrency-limits' Vegas. */
    VEGAS("arbiter-vegas", "Arbiter, Vegas limit"),
    /** HAProxy 2.6, maxconn at the knee, a queue timeout. */
    HAPROXY("haproxy", "HAProxy, maxconn at the knee"),
    /** NGINX 1.22, no cap, no queue. */
    NGINX("nginx", "NGINX, no cap");

    private final String key;
    private final String label;

    Contender(String key, String label) {
        this.key = key;
        this.label = label;
    }

    /** The name on the command line, in result.json and in file names. */
    public String key() {
        return key;
    }

    /** The row's name in the table and the charts' legends. */
    public String label() {
        return label;
    }

    /** Whether this contender needs the broker and a GRM. */
    boolean usesGrm() {
        return this == GRM || this == GRM_QUEUE;
    }

    /** Whether this contender is Arbiter's gateway. */
    boolean isArbiter() {
        return this != HAPROXY && this != NGINX;
    }

    /** A comma-separated list of keys, or {@code all}. @throws IllegalArgumentException naming the unknown one */
    public static List<Contender> parseList(String text) {
        if (text == null || text.isBlank() || text.trim().equalsIgnoreCase("all")) {
            return List.of(values());
        }
        List<Contender> out = new ArrayList<>();
        for (String k : text.split(",")) {
            String key = k.trim().toLowerCase(Locale.ROOT);
            Contender c = null;
            for (Contender v : values()) {
                if (v.key.equals(key)) {
                    c = v;
                }
            }
            if (c == null) {
                throw new IllegalArgumentException("--contenders: " + k.trim() + " (expected: all, or a comma-separated list"
                        + " of " + String.join(", ", java.util.Arrays.stream(values()).map(Contender::key).toList()) + ")");
            }
            if (!out.contains(c)) {
                out.add(c);
            }
        }
        return List.copyOf(out);
    }
}
