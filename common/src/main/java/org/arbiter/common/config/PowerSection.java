package org.arbiter.common.config;

import static org.arbiter.common.config.ConfigKey.choice;
import static org.arbiter.common.config.ConfigKey.duration;
import static org.arbiter.common.config.ConfigKey.integer;
import static org.arbiter.common.config.ConfigKey.string;

import java.util.List;
import java.util.Map;

/**
 * The {@code power} section, declared once, with what each actuator needs (a command for exec, every
 * server's adminUrl for http).
 *
 * <p>Stateless and thread-safe.
 */
final class PowerSection {

    private PowerSection() {
    }

    static final ConfigKey<PowerConfig, PowerConfig.Actuator> ACTUATOR = choice("actuator", PowerConfig::actuator,
            PowerConfig.Actuator.class, PowerConfig.Actuator.LOG, "who switches servers");
    static final ConfigKey<PowerConfig, String> COMMAND = string("command", PowerConfig::command, null,
            "a template with `{server}` and `{action}` (`on`/`off`), run by `sh -c`").docRule("required with exec");
    static final ConfigKey<PowerConfig, Double> TIMEOUT = duration("timeout", PowerConfig::timeoutSeconds, 60,
            v -> v > 0, "> 0", "one attempt's limit: the exec command's run time; for http, the wait for the server's "
                    + "state beyond `sizing.startupDelay` / `shutdownDelay`");
    static final ConfigKey<PowerConfig, Integer> ATTEMPTS = integer("attempts", PowerConfig::attempts, 3, v -> v >= 1,
            ">= 1", "attempts per actuation before it is reported failed");
    static final ConfigKey<PowerConfig, Double> RETRY_DELAY = duration("retryDelay", PowerConfig::retryDelaySeconds, 1,
            v -> v >= 0, ">= 0", "back-off before the second attempt, doubling after each failure");

    static final List<ConfigKey<PowerConfig, ?>> KEYS = List.of(ACTUATOR, COMMAND, TIMEOUT, ATTEMPTS, RETRY_DELAY);

    static PowerConfig read(Node p, List<ServerConfig> servers) {
        PowerConfig.Actuator actuator = ACTUATOR.read(p);
        String command = COMMAND.read(p);
        double timeout = TIMEOUT.read(p);
        int attempts = ATTEMPTS.read(p);
        double retryDelay = RETRY_DELAY.read(p);
        p.finish();
        PowerConfig power = new PowerConfig(actuator, command, timeout, attempts, retryDelay);
        across(power, servers, p.path(), p.errors());
        return power;
    }

    /** exec needs a command; http needs every server's admin API. */
    static void across(PowerConfig power, List<ServerConfig> servers, String path, List<String> errors) {
        if (power.actuator() == PowerConfig.Actuator.EXEC && power.command() == null) {
            errors.add(Sections.path(path, "command")
                    + ": missing (expected: a command template with {server} and {action} when actuator is exec)");
        }
        if (power.actuator() == PowerConfig.Actuator.HTTP) {
            for (int i = 0; i < servers.size(); i++) {
                if (servers.get(i) != null && servers.get(i).adminUrl() == null) {
                    errors.add(Sections.path(path, "actuator") + ": http, but servers[" + i + "] (" + servers.get(i).id()
                            + ") has no adminUrl (expected: every server's admin API when actuator is http)");
                }
            }
        }
    }

    static void check(PowerConfig p, List<ServerConfig> servers, String path, List<String> errors) {
        Sections.check(p, path, KEYS, errors);
        across(p, servers, path, errors);
    }

    static Map<String, Object> write(PowerConfig p) {
        return Sections.write(p, KEYS);
    }
}
