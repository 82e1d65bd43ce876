package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The per-server slot book: slots under the cap, allocations, and what a reload does to caps. */
final class ServerSlotsTest {

    private final ServerSlots slots = new ServerSlots(
            Fixtures.twoClasses(3, "1s", "http://127.0.0.1:1", "http://127.0.0.1:2").servers());

    @Test
    void aSlotIsTakenOnlyUnderTheCap() {
        slots.install(Fixtures.allocation(1, Map.of(), Map.of("s1", 2, "s2", 0)));
        assertThat(slots.take(0)).isEqualTo(1);
        assertThat(slots.take(0)).isEqualTo(2);
        assertThat(slots.hasFreeSlot(0)).isFalse();
        assertThatThrownBy(() -> slots.take(0)).isInstanceOf(IllegalStateException.class)
                .hasMessage("server s1: inflight 2 (expected: < cap 2)");
        assertThatThrownBy(() -> slots.take(1)).hasMessage("server s2: inflight 0 (expected: < cap 0)");
        assertThat(slots.release(0)).isEqualTo(1);
        assertThat(slots.inFlights()).containsExactly(1, 0);
    }

    @Test
    void aLoweredCap_cutsNothingOff_theExcessDrains() {
        slots.take(0);
        slots.take(0);
        slots.take(0);
        slots.install(Fixtures.allocation(1, Map.of(), Map.of("s1", 1, "s2", 10)));
        assertThat(slots.inFlight(0)).isEqualTo(3);
        assertThat(slots.hasFreeSlot(0)).isFalse();
        slots.release(0);
        slots.release(0);
        assertThat(slots.hasFreeSlot(0)).isFalse();
        slots.release(0);
        assertThat(slots.hasFreeSlot(0)).isTrue();
    }

    @Test
    void aRetiredServer_hasCap0WhateverTheAllocationSays_untilItRejoins() {
        assertThat(slots.retireAbsent(Set.of("s1"))).containsExactly("s2");
        assertThat(slots.retireAbsent(Set.of("s1"))).as("retired once").isEmpty();
        slots.install(Fixtures.allocation(1, Map.of(), Map.of("s1", 4, "s2", 4)));
        assertThat(slots.caps()).containsExactly(4, 0);
        assertThat(slots.rejoin(0)).as("s1 was never retired").isFalse();
        assertThat(slots.rejoin(1)).isTrue();
        slots.install(Fixtures.allocation(2, Map.of(), Map.of("s1", 4, "s2", 4)));
        assertThat(slots.caps()).containsExactly(4, 4);
    }

    @Test
    void anAddedServer_takesTheNextIndex_andItsProvisionalCapUntilAnAllocationNamesIt() {
        int s3 = slots.add("s3");
        assertThat(s3).isEqualTo(2);
        assertThat(slots.indexOf("s3")).isEqualTo(2);
        assertThat(slots.ids()).containsExactly("s1", "s2", "s3");
        slots.provisional("s3", 6);
        slots.install(Fixtures.allocation(1, Map.of(), Map.of("s1", 1, "s2", 1)));
        assertThat(slots.caps()).containsExactly(1, 1, 6);
        slots.install(Fixtures.allocation(2, Map.of(), Map.of("s1", 1, "s2", 1, "s3", 2)));
        assertThat(slots.caps()).containsExactly(1, 1, 2);
        slots.install(Fixtures.allocation(3, Map.of(), Map.of("s1", 1, "s2", 1)));
        assertThat(slots.cap(2)).as("the GRM knows s3 now: not named means 0").isZero();
    }

    @Test
    void aProvisionalCap_endsWhenAnAllocationNamesTheServerZero_andANamelessOneKeepsIt() {
        slots.add("s3");
        slots.provisional("s3", 5);
        slots.install(Fixtures.allocation(1, Map.of(), Map.of("s1", 2)));
        assertThat(slots.caps()).as("s2 not named: 0; s3 not named: provisional").containsExactly(2, 0, 5);
        slots.install(Fixtures.allocation(2, Map.of(), Map.of("s1", 2, "s3", 0)));
        assertThat(slots.caps()).as("the GRM names s3 (the gateway reported its cap): taken back").containsExactly(2, 0, 0);
        slots.install(Fixtures.allocation(3, Map.of(), Map.of("s1", 2)));
        assertThat(slots.cap(2)).as("forgotten once named").isZero();
    }

    /**
     * An allocation installed the short way (only the servers capped before and those named are
     * touched, the capped list kept up to date) gives the caps and capped list of the plain rule
     * (every server of the scope to its provisional cap or 0, then the named ones), through random
     * scopes, reloads (servers added, retired, back) and provisional caps.
     */
    @Test
    void installsTouchingOnlyTheCappedAndNamedServers_giveThePlainRulesCaps() {
        for (int seed = 1; seed <= 300; seed++) {
            java.util.Random rnd = new java.util.Random(seed);
            int ns = 1 + rnd.nextInt(70);
            java.util.List<org.arbiter.common.config.ServerConfig> configured = new java.util.ArrayList<>();
            String[] urls = new String[ns];
            for (int s = 0; s < ns; s++) {
                urls[s] = "http://127.0.0.1:" + (1000 + s);
            }
            configured.addAll(Fixtures.twoClasses(1 + rnd.nextInt(3), "1s", urls).servers());
            ServerSlots fast = new ServerSlots(configured);
            java.util.List<String> ids = new java.util.ArrayList<>(fast.ids());
            int[] caps = new int[ns];
            for (int s = 0; s < ns; s++) {
                caps[s] = fast.cap(s);
            }
            boolean[] retired = new boolean[ns];
            Map<String, Integer> provisional = new java.util.HashMap<>();
            for (int step = 0; step < 120; step++) {
                int op = rnd.nextInt(20);
                if (op == 0) { // a reload adds a server, maybe with a provisional cap
                    String id = "x" + step;
                    fast.add(id);
                    ids.add(id);
                    caps = java.util.Arrays.copyOf(caps, ids.size());
                    retired = java.util.Arrays.copyOf(retired, ids.size());
                    if (rnd.nextBoolean()) {
                        int p = 1 + rnd.nextInt(4);
                        fast.provisional(id, p);
                        provisional.put(id, p);
                    }
                } else if (op == 1) { // a reload keeps some servers
                    java.util.Set<String> kept = new java.util.HashSet<>();
                    for (String id : ids) {
                        if (rnd.nextInt(5) != 0) {
                            kept.add(id);
                        }
                    }
                    fast.retireAbsent(kept);
                    for (int s = 0; s < ids.size(); s++) {
                        if (!retired[s] && !kept.contains(ids.get(s))) {
                            retired[s] = true;
                            caps[s] = 0;
                            provisional.remove(ids.get(s));
                        }
                    }
                } else if (op == 2) {
                    int s = rnd.nextInt(ids.size());
                    fast.rejoin(s);
                    retired[s] = false;
                } else { // an allocation, for every server or a pool's
                    boolean[] only = null;
                    if (rnd.nextBoolean()) {
                        only = new boolean[rnd.nextInt(ids.size() + 1)];
                        for (int s = 0; s < only.length; s++) {
                            only[s] = rnd.nextBoolean();
                        }
                    }
                    Map<String, Integer> named = new java.util.HashMap<>();
                    for (String id : ids) {
                        if (rnd.nextInt(3) == 0) {
                            named.put(id, rnd.nextInt(4));
                        }
                    }
                    if (rnd.nextInt(10) == 0) {
                        named.put("unknown", 3);
                    }
                    fast.install(Fixtures.allocation(step, Map.of(), named), only);
                    provisional.keySet().removeAll(named.keySet());
                    for (int s = 0; s < ids.size(); s++) {
                        if (only == null || s < only.length && only[s]) {
                            caps[s] = retired[s] ? 0 : provisional.getOrDefault(ids.get(s), 0);
                            Integer n = named.get(ids.get(s));
                            if (n != null && !retired[s]) {
                                caps[s] = n;
                            }
                        }
                    }
                }
                int[] expected = caps;
                assertThat(fast.caps()).as("seed %d step %d", seed, step).containsExactly(expected);
                assertThat(fast.capped()).as("seed %d step %d", seed, step).containsExactly(
                        java.util.stream.IntStream.range(0, expected.length).filter(s -> expected[s] > 0).toArray());
            }
        }
    }
}
