package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

/**
 * How power orders are carried out.
 *
 * @param actuator log, exec or http
 * @param command  for exec: a template with {@code {server}} and {@code {action}}, or null
 */
public record PowerConfig(String actuator, String command) {
    public PowerConfig {
        requireNonNull(actuator, "actuator");
    }
}
