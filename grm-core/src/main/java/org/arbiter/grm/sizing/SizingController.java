package org.arbiter.grm.sizing;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import org.arbiter.common.message.ServerState;

/**
 * Turns a {@link SizingPolicy}'s answer into power orders for a set of
 * {@link PowerStateMachine}s (000 §7.5): one change at a time; after a power-on, a warm-up before
 * the next change; a server is turned off only when the remaining ON servers carry the forecast,
 * and not within {@code offHoldSeconds} of the last power-on (the break-even time: a server that
 * is shut down and booted again inside start-up + shutdown delay draws as much as if it had stayed
 * on, and the forecast that called for the power-on has not had time to be proven wrong — without
 * the hold, a forecast hovering at a multiple of the capacity turns the same server on and off
 * every minute); never fewer than {@code minServers} nor more than {@code maxServers} on. Servers
 * are powered on in list order and off in reverse order. Core class; not thread-safe.
 */
public final class SizingController {

    /** An order the controller gave. */
    public record Order(int server, ServerState target) {
    }

    private final SizingPolicy policy;
    private final int minServers;
    private final int maxServers;
    private final double warmUpSeconds;
    private final double offHoldSeconds;
    private double quietUntil = Double.NEGATIVE_INFINITY;
    private double offQuietUntil = Double.NEGATIVE_INFINITY;

    /** Without an off-hold. */
    public SizingController(SizingPolicy policy, int minServers, int maxServers, double warmUpSeconds) {
        this(policy, minServers, maxServers, warmUpSeconds, 0);
    }

    public SizingController(SizingPolicy policy, int minServers, int maxServers, double warmUpSeconds,
                            double offHoldSeconds) {
        this.policy = requireNonNull(policy, "policy");
        this.minServers = minServers;
        this.maxServers = maxServers;
        this.warmUpSeconds = warmUpSeconds;
        this.offHoldSeconds = offHoldSeconds;
    }

    /** One period: at most one order. */
    public List<Order> step(double nowSeconds, double forecastRate, double capacityPerServer,
                            List<PowerStateMachine> servers) {
        return step(nowSeconds, forecastRate, forecastRate, capacityPerServer, servers);
    }

    /**
     * As above, with the load a power-off must leave carried ({@code offRate}, e.g. the highest
     * rate of the recent past) apart from the load power-ons follow.
     */
    public List<Order> step(double nowSeconds, double forecastRate, double offRate, double capacityPerServer,
                            List<PowerStateMachine> servers) {
        List<Order> out = new ArrayList<>();
        servers.forEach(s -> s.advance(nowSeconds));
        if (nowSeconds < quietUntil) {
            return out;
        }
        int max = maxServers <= 0 ? servers.size() : Math.min(maxServers, servers.size());
        int wanted = Math.max(minServers, Math.min(max, policy.wanted(nowSeconds, forecastRate, capacityPerServer,
                servers.size())));
        int up = 0;
        for (PowerStateMachine s : servers) {
            if (s.state() == ServerState.ON || s.state() == ServerState.BOOTING) {
                up++;
            }
        }
        if (wanted > up) {
            for (int i = 0; i < servers.size(); i++) {
                ServerState st = servers.get(i).state();
                if ((st == ServerState.OFF || st == ServerState.DRAINING) && servers.get(i).powerOn(nowSeconds)) {
                    out.add(new Order(i, ServerState.ON));
                    quietUntil = nowSeconds + warmUpSeconds;
                    offQuietUntil = nowSeconds + offHoldSeconds;
                    break;
                }
            }
        } else if (wanted < up) {
            int on = (int) servers.stream().filter(s -> s.state() == ServerState.ON).count();
            boolean restCarry = capacityPerServer <= 0 ? false
                    : (on - 1) * capacityPerServer >= Math.max(forecastRate, offRate);
            if (restCarry && on > minServers && nowSeconds >= offQuietUntil) {
                for (int i = servers.size() - 1; i >= 0; i--) {
                    if (servers.get(i).state() == ServerState.ON) {
                        servers.get(i).powerOff(nowSeconds);
                        out.add(new Order(i, ServerState.OFF));
                        break;
                    }
                }
            }
        }
        return out;
    }
}
