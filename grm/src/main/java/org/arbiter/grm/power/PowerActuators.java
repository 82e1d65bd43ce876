package org.arbiter.grm.power;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import org.arbiter.common.config.ClusterConfig;

/** The power actuators {@code power.actuator} can name: {@code log}, {@code exec}, {@code http}. */
public final class PowerActuators {

    private PowerActuators() {
    }

    /** The actuator {@code power.actuator} names, with the configured timeout. */
    public static PowerActuator of(ClusterConfig config) {
        requireNonNull(config, "config");
        Duration timeout = Duration.ofMillis(Math.round(config.power().timeoutSeconds() * 1000));
        return switch (config.power().actuator()) {
            case EXEC -> new ExecActuator(config.power().command(), timeout);
            case HTTP -> new HttpActuator(
                    Duration.ofMillis(Math.round(config.sizing().startupDelaySeconds() * 1000)).plus(timeout),
                    Duration.ofMillis(Math.round(config.sizing().shutdownDelaySeconds() * 1000)).plus(timeout),
                    Duration.ofMillis(100));
            case LOG -> new LogActuator();
        };
    }

}
