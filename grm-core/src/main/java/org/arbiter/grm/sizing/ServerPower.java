package org.arbiter.grm.sizing;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.config.SizingConfig;
import org.arbiter.common.message.Message;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;

/**
 * The servers' power states and drains. Each server has the model's PowerStateMachine: orders move
 * it at once (ON → DRAINING, OFF → BOOTING), time completes boots and shutdowns, and observations
 * (actuator feedback) override the model. A PowerOrder records every state change; an OFF
 * Actuation goes out once per drain, when the drain completed (so no request in flight is cut).
 * Not thread-safe.
 */
final class ServerPower {

    private final List<ServerConfig> servers;
    private final List<PowerStateMachine> machines = new ArrayList<>();
    private final long[] sequence;
    private final boolean[] shutdownSent;

    /** All servers start ON (the configuration is what runs until the GRM says otherwise). */
    ServerPower(List<ServerConfig> servers, SizingConfig sizing, double nowSeconds) {
        this.servers = List.copyOf(servers);
        this.sequence = new long[servers.size()];
        this.shutdownSent = new boolean[servers.size()];
        for (ServerConfig s : servers) {
            machines.add(new PowerStateMachine(ServerState.ON, s.power(),
                    sizing.startupDelaySeconds(), sizing.shutdownDelaySeconds(), nowSeconds));
        }
    }

    int size() {
        return servers.size();
    }

    String id(int i) {
        return servers.get(i).id();
    }

    PowerStateMachine machine(int i) {
        return machines.get(i);
    }

    List<PowerStateMachine> machines() {
        return machines;
    }

    ServerState state(int i) {
        return machines.get(i).state();
    }

    /** Servers ON or BOOTING. */
    int upOrBooting() {
        int up = 0;
        for (PowerStateMachine m : machines) {
            up += m.state() == ServerState.ON || m.state() == ServerState.BOOTING ? 1 : 0;
        }
        return up;
    }

    int index(String server) {
        for (int i = 0; i < servers.size(); i++) {
            if (servers.get(i).id().equals(server)) {
                return i;
            }
        }
        throw new IllegalArgumentException("server: " + server + " (expected: one of the configured servers)");
    }

    ServerState[] states() {
        ServerState[] out = new ServerState[servers.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = machines.get(i).state();
        }
        return out;
    }

    /** A drained server shuts down: one OFF actuation per drain. */
    void shutdownIfDrained(int i, List<Fleet.Actuation> actuations) {
        PowerStateMachine m = machines.get(i);
        boolean drained = m.state() == ServerState.DRAINING && m.dueAt() < Double.POSITIVE_INFINITY
                || m.state() == ServerState.OFF;
        if (m.state() == ServerState.ON || m.state() == ServerState.BOOTING) {
            shutdownSent[i] = false;
        } else if (drained && !shutdownSent[i]) {
            shutdownSent[i] = true;
            actuations.add(new Fleet.Actuation(servers.get(i).id(), ServerState.OFF, "drained"));
        }
    }

    /** The orders recording every state change since {@code before}. */
    List<PowerOrder> ordersSince(ServerState[] before, Instant at) {
        List<PowerOrder> out = new ArrayList<>();
        for (int i = 0; i < servers.size(); i++) {
            ServerState now = machines.get(i).state();
            if (now != before[i]) {
                ServerState target = now == ServerState.ON || now == ServerState.BOOTING ? ServerState.ON : ServerState.OFF;
                out.add(new PowerOrder(Message.VERSION, at, servers.get(i).id(), target, now,
                        before[i] + " -> " + now, ++sequence[i]));
            }
        }
        return out;
    }

    /** Actuator feedback (see Fleet.observed); returns the order recording a change, if any. */
    List<PowerOrder> observed(String server, boolean up, double nowSeconds, Instant at) {
        ServerState[] before = states();
        int i = index(server);
        machines.get(i).observed(up, nowSeconds);
        return ordersSince(before, at);
    }

    /** Advances the model's clock (boots and shutdowns that completed); returns the state changes. */
    List<PowerOrder> advance(double nowSeconds, Instant at) {
        ServerState[] before = states();
        machines.forEach(m -> m.advance(nowSeconds));
        return ordersSince(before, at);
    }
}
