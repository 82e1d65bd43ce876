package org.arbiter.sim;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.loadgen.model.PowerModel;

/**
 * The simulated servers' power: one PowerModel per server (all ON at 0), what the GRM last asked
 * each to be (on or off), and how many boots it ordered. The simulator drives the transitions;
 * this class only holds the state and counts it. Not thread-safe (the simulator's thread only).
 */
final class ServerPower {

    /** How many servers are in each state at one instant, and what they draw (W). */
    record Census(int on, int booting, int shuttingDown, double watts) {
    }

    private final List<ServerConfig> servers;
    private final PowerModel[] models;
    private final boolean[] wantOn;
    private long boots;

    ServerPower(ClusterConfig config) {
        servers = config.servers();
        models = new PowerModel[servers.size()];
        wantOn = new boolean[servers.size()];
        for (int i = 0; i < models.length; i++) {
            ServerConfig.PowerDraw w = servers.get(i).power();
            models[i] = new PowerModel(new PowerModel.Watts(w.offWatts(), w.bootWatts(), w.idleWatts(), w.busyWatts()),
                    config.sizing().startupDelaySeconds(), config.sizing().shutdownDelaySeconds(), PowerModel.State.ON, 0);
            wantOn[i] = true;
        }
    }

    int size() {
        return models.length;
    }

    PowerModel model(int s) {
        return models[s];
    }

    boolean wantOn(int s) {
        return wantOn[s];
    }

    void want(int s, boolean on) {
        wantOn[s] = on;
    }

    void booted() {
        boots++;
    }

    long boots() {
        return boots;
    }

    /** Every server moved to {@code t}, counted by state. */
    Census census(double t) {
        int on = 0;
        int booting = 0;
        int shuttingDown = 0;
        double watts = 0;
        for (PowerModel m : models) {
            switch (m.advanceTo(t)) {
                case ON -> on++;
                case BOOTING -> booting++;
                case SHUTTING_DOWN -> shuttingDown++;
                default -> { }
            }
            watts += m.watts();
        }
        return new Census(on, booting, shuttingDown, watts);
    }

    /** Every server's energy (J) by id, moved to {@code end}. */
    Map<String, Double> joules(double end) {
        Map<String, Double> joules = new LinkedHashMap<>();
        for (int s = 0; s < models.length; s++) {
            models[s].advanceTo(end);
            joules.put(servers.get(s).id(), models[s].joules());
        }
        return joules;
    }
}
