package org.arbiter.grm.control;

import static java.util.Objects.requireNonNull;

import java.util.HashMap;
import java.util.Map;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;

/*
 * Design note — which servers an allocation names.
 *
 * A gateway gives a server the allocation does not name no slots (or, for a server it added by a
 * reload before any allocation named it, its provisional cap: ServerSlots). So an allocation needs to
 * name only the servers it gives slots on, and those where the gateway may hold a cap now and must
 * give it up: the last allocation published to the gateway gave it slots there, or the gateway's
 * latest statistics report a cap there (a provisional cap, or one from an allocation this GRM did not
 * publish). Every other server's cap is 0 either way. At 100 gateways × 1 000 servers a gateway uses
 * about a hundred: naming every server made each allocation ten times larger on the wire and in every
 * process that holds it, for the same caps in force.
 *
 * Pure function of its inputs; not thread-safe (built and read on the control thread).
 */

/** Cuts a planned allocation's caps to the servers it must name; see the design note. */
final class CapListing {

    /** Names the servers given slots only (a configured allocation, which nothing held before). */
    static final CapListing POSITIVE = new CapListing(Map.of(), Map.of());

    private final Map<String, GatewayStats> live;
    private final Map<String, Allocation> last;

    /**
     * @param live the live gateways' latest statistics
     * @param last the allocation last published to each gateway
     */
    CapListing(Map<String, GatewayStats> live, Map<String, Allocation> last) {
        this.live = requireNonNull(live, "live");
        this.last = requireNonNull(last, "last");
    }

    /** {@code caps} planned for {@code gateway}, less the zero caps the gateway does not hold. */
    Map<String, Integer> of(String gateway, Map<String, Integer> caps) {
        Map<String, Integer> out = new HashMap<>();
        caps.forEach((s, n) -> {
            if (n > 0) {
                out.put(s, n);
            }
        });
        Allocation a = last.get(gateway);
        if (a != null) {
            a.serverCaps().forEach((s, n) -> keepZero(out, caps, s, n));
        }
        GatewayStats st = live.get(gateway);
        if (st != null) {
            st.servers().forEach((s, ss) -> keepZero(out, caps, s, ss.cap()));
        }
        return out;
    }

    /** The gateway holds {@code held} on {@code server}: a planned 0 there (or none: not ON) is named 0. */
    private static void keepZero(Map<String, Integer> out, Map<String, Integer> caps, String server, int held) {
        if (held > 0 && !out.containsKey(server)) {
            out.put(server, caps.getOrDefault(server, 0));
        }
    }
}
