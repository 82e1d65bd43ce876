package org.arbiter.gateway.netty;

import java.util.List;

/**
 * What a reload did: the configuration version now in force, what changed, and what could not be
 * applied while running (a restart applies it). {@code POST /reload}'s answer ({@link AdminHandler}).
 */
public record ReloadReport(long version, String hash, List<String> applied, List<String> notApplied) {
    public ReloadReport {
        applied = List.copyOf(applied);
        notApplied = List.copyOf(notApplied);
    }
}
