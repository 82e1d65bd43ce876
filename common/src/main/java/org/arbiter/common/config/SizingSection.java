package org.arbiter.common.config;

import static org.arbiter.common.config.ConfigKey.choice;
import static org.arbiter.common.config.ConfigKey.duration;
import static org.arbiter.common.config.ConfigKey.integer;
import static org.arbiter.common.config.ConfigKey.number;
import static org.arbiter.common.config.ConfigKey.shaped;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code sizing} section, declared once (000 §7.5), with the rules across its keys: what each
 * policy needs and minServers ≤ maxServers.
 *
 * <p>Stateless and thread-safe.
 */
final class SizingSection {

    private SizingSection() {
    }

    /** The words of {@code sizing.policy}; {@code static} is read as {@link #QUEUE} with the static estimator. */
    enum PolicyWord implements Choice {
        OFF("off"), STATIC("static"), QUEUE("queue"), UTILITY("utility"), SCHEDULE("schedule");

        private final String wireName;

        PolicyWord(String wireName) {
            this.wireName = wireName;
        }

        @Override
        public String wireName() {
            return wireName;
        }

        /** The word that writes {@code policy} back. */
        static PolicyWord of(SizingConfig.Policy policy) {
            if (policy instanceof SizingConfig.ByCapacity) {
                return QUEUE;
            } else if (policy instanceof SizingConfig.Utility) {
                return UTILITY;
            } else if (policy instanceof SizingConfig.Schedule) {
                return SCHEDULE;
            }
            return OFF;
        }
    }

    /** The policy when {@code sizing.policy} is absent. */
    static final SizingConfig.Policy DEFAULT_POLICY = SizingConfig.Policy.OFF;

    static final ConfigKey<SizingConfig, PolicyWord> POLICY = choice("policy",
            (SizingConfig s) -> PolicyWord.of(s.policy()), PolicyWord.class, PolicyWord.OFF,
            "cluster sizing (000 §7.5): `off` (all servers always on, no power orders), `queue` (by capacity: the "
                    + "fewest servers whose capacity by `estimator` carries the forecast arrival rate λ̂, "
                    + "`ceil(λ̂ / capacity)`), `static` (the same with the static estimator), `utility` (the fewest "
                    + "servers with which the optimal Ω reaches `utilityFloor`), `schedule` (a timetable)");
    static final ConfigKey<SizingConfig, Integer> MIN_SERVERS = integer("minServers", SizingConfig::minServers, 1,
            v -> v >= 0, ">= 0", "never fewer servers ON").docRule("≥ 0, ≤ maxServers");
    static final ConfigKey<SizingConfig, Integer> MAX_SERVERS = integer("maxServers", SizingConfig::maxServers, 0,
            v -> v >= 0, ">= 0 (0 = all servers)", "never more servers ON");
    static final ConfigKey<SizingConfig, Double> STARTUP_DELAY = duration("startupDelay",
            SizingConfig::startupDelaySeconds, 60, v -> v >= 0, ">= 0",
            "OFF → ON in the GRM's model (an actuator that sees the server overrides it); also the forecast's horizon");
    static final ConfigKey<SizingConfig, Double> SHUTDOWN_DELAY = duration("shutdownDelay",
            SizingConfig::shutdownDelaySeconds, 60, v -> v >= 0, ">= 0",
            "drained → OFF in the GRM's model (an actuator that sees the server overrides it)");
    static final ConfigKey<SizingConfig, Double> DROP_RATIO = number("dropRatio", SizingConfig::dropRatio, 0.01,
            v -> v > 0 && v < 1, "between 0 and 1", "ε_th, the drop-ratio bound defining capacity")
            .docRule("0 < x < 1");
    static final ConfigKey<SizingConfig, Double> UTILITY_FLOOR = number("utilityFloor",
            (SizingConfig s) -> s.policy() instanceof SizingConfig.Utility u ? u.floor() : null, 0,
            "the `utility` policy keeps Ω above it");
    static final ConfigKey<SizingConfig, Double> STATIC_CAPACITY = number("staticCapacity",
            SizingConfig::staticCapacity, 0, v -> v >= 0, ">= 0", "req/s one server sustains")
            .docRule("≥ 0; > 0 required with policy `static`, or `queue` with estimator `static`");
    static final ConfigKey<SizingConfig, SizingConfig.Estimator> ESTIMATOR = choice("estimator",
            SizingConfig::estimator, SizingConfig.Estimator.class, SizingConfig.Estimator.QUEUE,
            "how capacity per server is estimated for the `queue` policy: queue monitoring (000 eq. 1-5, with the "
                    + "service rate measured in the gateways' backlog), the configured `staticCapacity`, or throughput "
                    + "over CPU-style utilisation (the baseline 000 shows overestimating I/O-bound load). Policy "
                    + "`static` always uses `staticCapacity`");
    static final ConfigKey<SizingConfig, Double> WARM_UP = duration("warmUp", SizingConfig::warmUpSeconds, 10,
            v -> v >= 0, ">= 0", "after a power-on, no other sizing change for this long (the new server's effect "
                    + "must show in the statistics first)");
    static final ConfigKey<SizingConfig, Double> SCHEDULE_SLOT = duration("schedule.slot",
            (SizingConfig s) -> s.policy() instanceof SizingConfig.Schedule t ? t.slotSeconds() : null, 1800, v -> v > 0, "> 0", "the `schedule` policy's slot length");
    static final ConfigKey<SizingConfig, Object> SCHEDULE_SERVERS = shaped("schedule.servers", "none",
            "list of counts ≥ 0; required with policy `schedule`",
            "servers to keep on in each slot, cycling from the epoch (`[2, 2, 4, 5, 5, 3]` with 4h slots is a day)");
    static final ConfigKey<SizingConfig, SizingConfig.Forecast> FORECAST = choice("forecast", SizingConfig::forecast,
            SizingConfig.Forecast.class, SizingConfig.Forecast.TREND,
            "λ̂ for `static`, `queue` and `utility`: `trend` extrapolates the arrival rate `startupDelay` ahead by a "
                    + "line over the last 16 statistics windows when its trend stands out of the noise (more than two "
                    + "standard errors from flat), else the windows' mean level, never below the current rate less two "
                    + "standard deviations of counting noise; `current` uses the measured rate, as 000's controllers "
                    + "do (on the energy day, ten seeds: 39.1 % vs 36.9 % saved, both without drops)");

    static final List<ConfigKey<SizingConfig, ?>> KEYS = List.of(POLICY, MIN_SERVERS, MAX_SERVERS, STARTUP_DELAY,
            SHUTDOWN_DELAY, DROP_RATIO, UTILITY_FLOOR, STATIC_CAPACITY, ESTIMATOR, WARM_UP, FORECAST, SCHEDULE_SLOT,
            SCHEDULE_SERVERS);

    static SizingConfig read(Node z) {
        Node zs = z.object("schedule");
        PolicyWord word = POLICY.read(z);
        int minServers = MIN_SERVERS.read(z);
        int maxServers = MAX_SERVERS.read(z);
        double startupDelay = STARTUP_DELAY.read(z);
        double shutdownDelay = SHUTDOWN_DELAY.read(z);
        double dropRatio = DROP_RATIO.read(z);
        double utilityFloor = UTILITY_FLOOR.read(z);
        double staticCapacity = STATIC_CAPACITY.read(z);
        SizingConfig.Estimator estimator = ESTIMATOR.read(z);
        double warmUp = WARM_UP.read(z);
        double slot = SCHEDULE_SLOT.read(zs);
        List<Integer> schedule = scheduleServers(zs);
        SizingConfig.Forecast forecast = FORECAST.read(z);
        zs.finish();
        z.finish();
        if (word == PolicyWord.SCHEDULE && schedule.isEmpty()) {
            z.error("schedule.servers", "missing (expected: a list of server counts, one per slot, when policy is schedule)");
        }
        SizingConfig.Policy policy = switch (word) {
            case OFF -> SizingConfig.Policy.OFF;
            case STATIC, QUEUE -> SizingConfig.Policy.BY_CAPACITY;
            case UTILITY -> new SizingConfig.Utility(utilityFloor);
            case SCHEDULE -> new SizingConfig.Schedule(slot, schedule);
        };
        SizingConfig sizing = new SizingConfig(policy, minServers, maxServers, startupDelay, shutdownDelay, dropRatio,
                staticCapacity, word == PolicyWord.STATIC ? SizingConfig.Estimator.STATIC : estimator, warmUp, forecast);
        across(sizing, z.path(), z.errors());
        return sizing;
    }

    /** The static estimator needs its capacity; minServers ≤ maxServers. */
    private static void across(SizingConfig sizing, String path, List<String> errors) {
        if (sizing.policy() instanceof SizingConfig.ByCapacity && sizing.estimator() == SizingConfig.Estimator.STATIC
                && sizing.staticCapacity() <= 0) {
            errors.add(Sections.path(path, "staticCapacity")
                    + ": missing (expected: requests/s one server sustains, > 0, for the static estimator)");
        }
        if (sizing.maxServers() > 0 && sizing.minServers() > sizing.maxServers()) {
            errors.add(Sections.path(path, "minServers") + ": " + sizing.minServers()
                    + " (expected: <= sizing.maxServers, " + sizing.maxServers() + ")");
        }
    }

    private static List<Integer> scheduleServers(Node schedule) {
        List<Integer> out = new ArrayList<>();
        JsonNode raw = schedule.rawValue("servers");
        if (raw == null || raw.isNull()) {
            return out;
        }
        if (!raw.isArray()) {
            schedule.error("servers", raw + " (expected: a list of whole numbers >= 0)");
            return out;
        }
        for (int i = 0; i < raw.size(); i++) {
            JsonNode n = raw.get(i);
            if (!n.canConvertToInt() || !n.isIntegralNumber() || n.asInt() < 0) {
                schedule.error("servers[" + i + "]", n + " (expected: a whole number >= 0)");
            } else {
                out.add(n.asInt());
            }
        }
        return out;
    }

    static void check(SizingConfig s, String path, List<String> errors) {
        Sections.check(s, path, KEYS, errors);
        if (s.policy() instanceof SizingConfig.Schedule t) {
            if (t.servers().isEmpty()) {
                errors.add(Sections.path(path, "schedule.servers")
                        + ": missing (expected: a list of server counts, one per slot, when policy is schedule)");
            }
            for (int i = 0; i < t.servers().size(); i++) {
                if (t.servers().get(i) == null || t.servers().get(i) < 0) {
                    errors.add(Sections.path(path, "schedule.servers[" + i + "]") + ": " + t.servers().get(i)
                            + " (expected: a whole number >= 0)");
                }
            }
        }
        across(s, path, errors);
    }

    /** The tree; {@code utilityFloor} and {@code schedule} only with their policies. */
    static Map<String, Object> write(SizingConfig s) {
        Map<String, Object> tree = Sections.write(s, KEYS);
        if (s.policy() instanceof SizingConfig.Schedule t) {
            Sections.put(tree, "schedule.servers", t.servers());
        }
        return tree;
    }
}
