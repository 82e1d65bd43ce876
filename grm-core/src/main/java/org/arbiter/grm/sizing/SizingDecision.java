package org.arbiter.grm.sizing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.SizingConfig;
import org.arbiter.common.message.ServerState;

/**
 * How many servers stay on, and which go on or off this period (000 §7.5). Operator pins come
 * first: a pinned server goes to its pinned state and is left out; the policy sizes the rest for
 * the load the pinned-on servers do not carry. Under sizing off every unpinned server is on.
 * Otherwise SizingController turns the policy's count into at most one order per period: on after
 * the warm-up of the last power-on; off only when the rest carry λ̂ and the load of the last
 * break-even time (LoadForecast.offLoad), and not within that time of the last power-on.
 *
 * <p>utility: the smallest k whose optimal Ω with the first k servers (asked of the
 * {@link UtilityOfSize} it is given) reaches sizing.utilityFloor; one more while Ω(on) is below it;
 * no decision for a statistics window after a change; the capacity check still guards a power-off
 * once an estimate exists. Not thread-safe.
 */
final class SizingDecision {

    private final SizingConfig sizing;
    private final double statsWindowSeconds;
    private final int servers;
    private final SizingController controller;
    private final double utilityFloor;
    private int utilityWanted;
    private double utilityHoldUntil = Double.NEGATIVE_INFINITY;

    SizingDecision(ClusterConfig config) {
        this.sizing = config.sizing();
        this.statsWindowSeconds = config.control().statsWindowSeconds();
        this.servers = config.servers().size();
        SizingPolicy policy;
        if (sizing.policy() instanceof SizingConfig.ByCapacity) {
            policy = SizingPolicy.byCapacity(1.0);
        } else if (sizing.policy() instanceof SizingConfig.Schedule s) {
            policy = SizingPolicy.schedule(s.slotSeconds(), s.servers().stream().mapToInt(Integer::intValue).toArray());
        } else if (sizing.policy() instanceof SizingConfig.Utility) {
            policy = (now, rate, c, n) -> utilityWanted;
        } else {
            policy = SizingPolicy.alwaysOn();
        }
        this.utilityFloor = sizing.policy() instanceof SizingConfig.Utility u ? u.floor() : 0;
        this.controller = sizing.policy() instanceof SizingConfig.Off ? null
                : new SizingController(policy, sizing.minServers(), sizing.maxServers(), sizing.warmUpSeconds(),
                        sizing.startupDelaySeconds() + sizing.shutdownDelaySeconds());
        this.utilityWanted = servers;
    }

    /** What one period needs to decide. */
    record Input(double nowSeconds, double rate, int on, double capacity, UtilityOfSize omega,
                 Map<String, ServerState> pins, IntUnaryOperator concurrency) {
    }

    /** Decides; power states change in {@code power}, actuations are appended. */
    void decide(Input in, ServerPower power, LoadForecast load, List<Fleet.Actuation> actuations) {
        double now = in.nowSeconds();
        List<Integer> free = new ArrayList<>();
        int pinnedOn = 0;
        for (int i = 0; i < power.size(); i++) {
            ServerState pin = in.pins().get(power.id(i));
            PowerStateMachine m = power.machine(i);
            if (pin == ServerState.ON) {
                pinnedOn++;
                if (m.powerOn(now)) {
                    actuations.add(new Fleet.Actuation(power.id(i), ServerState.ON, "operator pinned it on"));
                }
            } else if (pin == ServerState.OFF) {
                if (m.powerOff(now)) {
                    power.shutdownIfDrained(i, actuations);
                }
            } else {
                free.add(i);
            }
        }
        if (controller == null) {
            // sizing off: every server the operator does not hold off is on (a released pin comes back)
            for (int i : free) {
                ServerState st = power.state(i);
                if ((st == ServerState.OFF || st == ServerState.DRAINING) && power.machine(i).powerOn(now)) {
                    actuations.add(new Fleet.Actuation(power.id(i), ServerState.ON, "sizing off: every server on"));
                }
            }
            return;
        }
        if (free.isEmpty()) {
            return;
        }
        boolean utility = sizing.policy() instanceof SizingConfig.Utility;
        double c = in.capacity();
        double lambda = Math.max(0, load.forecast() - pinnedOn * c);
        if (utility) {
            utilityWanted = utilityWanted(in, power) - pinnedOn;
            // Ω decides how many; the capacity estimate, once known, still guards a power-off
            // (the GRM's M/M/1 model is optimistic near saturation: it does not see queue timeouts)
            c = c > 0 ? c : Double.POSITIVE_INFINITY;
        }
        double offLoad = Math.max(0, load.offLoad(now, in.rate()) - pinnedOn * c);
        List<SizingController.Order> decided = controller.step(now, lambda, offLoad, c,
                free.stream().map(power::machine).toList());
        if (!decided.isEmpty() && utility) {
            utilityHoldUntil = now + statsWindowSeconds;
        }
        for (SizingController.Order o : decided) {
            int i = free.get(o.server());
            if (o.target() == ServerState.ON) {
                actuations.add(new Fleet.Actuation(power.id(i), ServerState.ON,
                        "sizing " + sizing.policy() + ": forecast " + round(load.forecast()) + " req/s"));
            } else {
                power.shutdownIfDrained(i, actuations);
            }
        }
    }

    private int utilityWanted(Input in, ServerPower power) {
        if (in.omega() == null) {
            return servers;
        }
        if (in.nowSeconds() < utilityHoldUntil) {
            // the statistics Ω is computed from still mix in the time before the last change:
            // judging them again would remove a second server on the first one's evidence
            return power.upOrBooting();
        }
        int on = in.on();
        int min = Math.max(1, sizing.minServers());
        if (on > 0 && omega(in, power, on) < utilityFloor) {
            return Math.min(servers, on + 1);
        }
        // hysteresis: one fewer only when Ω with one fewer still clears the floor
        if (on > min && omega(in, power, on - 1) >= utilityFloor) {
            return on - 1;
        }
        return Math.max(on, min);
    }

    /** Ω with the first k servers in configuration order, at their N_s now. */
    private static double omega(Input in, ServerPower power, int k) {
        Map<String, Integer> first = new LinkedHashMap<>();
        for (int i = 0; i < Math.min(k, power.size()); i++) {
            first.put(power.id(i), in.concurrency().applyAsInt(i));
        }
        return first.isEmpty() ? Double.NEGATIVE_INFINITY : in.omega().omega(first);
    }

    private static double round(double d) {
        return Math.round(d * 10) / 10.0;
    }
}
