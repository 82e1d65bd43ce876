package org.arbiter.grm.power;

import org.arbiter.grm.control.GrmCore.Seen;

import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.ServerState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code power.actuator: log}: logs the order and does nothing else; the model's start-up and
 * shutdown delays stand for the server. For trials, the simulator's world, and clusters whose
 * operators act on the orders themselves (the {@code power} topic carries them). Thread-safe.
 */
public final class LogActuator implements PowerActuator {

    private static final Logger LOG = LoggerFactory.getLogger(LogActuator.class);

    @Override
    public Seen actuate(ServerConfig server, ServerState action) {
        LOG.info("power {} {} (actuator log: nothing is switched)", PowerActuator.word(action), server.id());
        return Seen.UNKNOWN;
    }

    @Override
    public String name() {
        return "log";
    }
}
