package org.arbiter.grm.power;

import org.arbiter.grm.control.GrmCore.Seen;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.ServerState;

/**
 * Carries out one power action on one server: {@code log}, {@code exec} or {@code http}
 * ({@code power.actuator}). An actuation may take as long as the server takes to boot, so
 * implementations block; {@link PowerDriver} calls them on its own threads, never on the GRM's
 * control thread, retries failures and reports what was seen.
 *
 * <p>Implementations are thread-safe: the driver may act on several servers at once (one action at
 * a time per server).
 */
public interface PowerActuator {

    /**
     * Powers {@code server} on ({@code action} ON) or off (OFF) and returns what it saw once done.
     *
     * @throws ActuationException when the action failed; it carries what was seen, if anything
     * @throws InterruptedException when the GRM is closing
     */
    Seen actuate(ServerConfig server, ServerState action) throws ActuationException, InterruptedException;

    /** log, exec or http. */
    String name();

    /** The actuator {@code power.actuator} names, with the configured timeout. */
    static PowerActuator of(ClusterConfig config) {
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

    /** The {@code {action}} word: on or off. */
    static String word(ServerState action) {
        if (action != ServerState.ON && action != ServerState.OFF) {
            throw new IllegalArgumentException("action: " + action + " (expected: ON or OFF)");
        }
        return action == ServerState.ON ? "on" : "off";
    }
}
