package org.arbiter.common.config;

import static org.arbiter.common.config.ConfigKey.choice;
import static org.arbiter.common.config.ConfigKey.duration;
import static org.arbiter.common.config.ConfigKey.integer;
import static org.arbiter.common.config.ConfigKey.number;

import java.util.List;
import java.util.Map;

/**
 * The {@code control} section, declared once: its keys (read, checked, written and documented from
 * these declarations) and the rule across them (statsWindow ≥ reportPeriod).
 *
 * <p>Stateless and thread-safe.
 */
final class ControlSection {

    private ControlSection() {
    }

    static final ConfigKey<ControlConfig, Double> PERIOD = duration("period", ControlConfig::periodSeconds, 5,
            v -> v > 0, "> 0", "Γ, the GRM's control period");
    static final ConfigKey<ControlConfig, Double> REPORT_PERIOD = duration("reportPeriod",
            ControlConfig::reportPeriodSeconds, 5, v -> v > 0, "> 0", "how often gateways publish statistics");
    static final ConfigKey<ControlConfig, Double> STATS_WINDOW = duration("statsWindow",
            ControlConfig::statsWindowSeconds, 30, v -> v > 0, "> 0", "sliding window of the gateways' averages")
            .docRule("duration ≥ reportPeriod");
    static final ConfigKey<ControlConfig, ControlConfig.Combine> COMBINE = choice("combine", ControlConfig::combine,
            ControlConfig.Combine.class, ControlConfig.Combine.MIN, "003 eq. 2b or 2a");
    static final ConfigKey<ControlConfig, Integer> GRANULARITY = integer("granularity", ControlConfig::granularity, 1,
            v -> v >= 1 && v <= 1000, "1..1000", "q: weights move in units of 1/q");
    static final ConfigKey<ControlConfig, Double> MIN_WEIGHT = number("minWeight", ControlConfig::minWeight, 1,
            v -> v >= 0, ">= 0", "lower bound of every w(g,c)");
    static final ConfigKey<ControlConfig, Double> RESPONSE_TIME_CAP = number("responseTimeCap",
            ControlConfig::responseTimeCap, 10, v -> v > 1, "> 1", "predictions are clamped to this multiple of τ_c");
    static final ConfigKey<ControlConfig, ControlConfig.Prediction> PREDICTION = choice("prediction",
            ControlConfig::prediction, ControlConfig.Prediction.class, ControlConfig.Prediction.MM1,
            "mm1: c = w slots of the measured service time (M/M/c//n with `thinkTime`, else M/M/c), 003 eq. 9 when no "
                    + "service time is measured ([grm.md](grm.md#the-model-003-iv)); queue-length: Arbiter's backlog term, "
                    + "λ̃ + k·max(0, ℓ − λ̃t̃)/Γ; liu: 001's controller as printed, 001 §4 Step 1-3 (+ Δμ), see "
                    + "[grm.md](grm.md#001s-controller-as-printed-prediction-liu)");
    static final ConfigKey<ControlConfig, Double> GAIN = number("gain", ControlConfig::gain, 1, v -> v >= 0, ">= 0",
            "k of the queue-length feedback");
    static final ConfigKey<ControlConfig, Double> MAX_CLOCK_SKEW = duration("maxClockSkew",
            ControlConfig::maxClockSkewSeconds, 30, v -> v >= 0 && v <= 3600, "0s..1h",
            "how far a control record's `at` or epoch may lie ahead of the reader's clock (gateways and GRMs) before it "
                    + "is refused as implausible, and a gateway's statistics record before the GRM refuses it as `future`; see "
                    + "[reliability.md](reliability.md#control-records-epochs-and-bounds). "
                    + "Keep the hosts' clocks (NTP) well inside it");
    static final ConfigKey<ControlConfig, Double> LIU_K = number("liu.k", (ControlConfig c) -> c.liu().k(), 1,
            v -> v >= 0 && v <= 1000, "0..1000",
            "001 Step 3's K in units of 1/τ_c (K = k/τ_c; 1 is 001's K = 1/D_ref)");
    static final ConfigKey<ControlConfig, Double> LIU_KP = number("liu.pi.kp", (ControlConfig c) -> c.liu().kp(), 0,
            v -> v >= 0 && v <= 1000, "0..1000",
            "proportional gain of 001 Fig. 2's Δμ on the relative delay error (0 = off)");
    static final ConfigKey<ControlConfig, Double> LIU_KI = number("liu.pi.ki", (ControlConfig c) -> c.liu().ki(), 0,
            v -> v >= 0 && v <= 1000, "0..1000",
            "integral gain of Δμ, per τ_c of time (0 = off); the integral term is held within 1/τ_c");

    static final List<ConfigKey<ControlConfig, ?>> KEYS = List.of(PERIOD, REPORT_PERIOD, STATS_WINDOW, COMBINE,
            GRANULARITY, MIN_WEIGHT, RESPONSE_TIME_CAP, PREDICTION, GAIN, MAX_CLOCK_SKEW, LIU_K, LIU_KP, LIU_KI);

    /** Reads {@code control}; a bad value is recorded and replaced by its default. */
    static ControlConfig read(Node k) {
        double period = PERIOD.read(k);
        double reportPeriod = REPORT_PERIOD.read(k);
        double statsWindow = STATS_WINDOW.read(k);
        ControlConfig.Combine combine = COMBINE.read(k);
        int granularity = GRANULARITY.read(k);
        double minWeight = MIN_WEIGHT.read(k);
        double responseTimeCap = RESPONSE_TIME_CAP.read(k);
        ControlConfig.Prediction prediction = PREDICTION.read(k);
        double gain = GAIN.read(k);
        double maxClockSkew = MAX_CLOCK_SKEW.read(k);
        Node l = k.object("liu");
        double liuK = LIU_K.read(l);
        Node pi = l.object("pi");
        double kp = LIU_KP.read(pi);
        double ki = LIU_KI.read(pi);
        pi.finish();
        l.finish();
        k.finish();
        ControlConfig control = new ControlConfig(period, reportPeriod, statsWindow, combine, granularity, minWeight,
                responseTimeCap, prediction, gain, maxClockSkew, new ControlConfig.Liu(liuK, kp, ki));
        across(control, k.path(), k.errors());
        return control;
    }

    /** The rule across keys: the stats window holds at least one report. */
    private static void across(ControlConfig c, String path, List<String> errors) {
        if (c.statsWindowSeconds() < c.reportPeriodSeconds()) {
            errors.add(Sections.path(path, "statsWindow") + ": " + Durations.format(c.statsWindowSeconds())
                    + " (expected: >= control.reportPeriod, " + Durations.format(c.reportPeriodSeconds()) + ")");
        }
    }

    static void check(ControlConfig c, String path, List<String> errors) {
        Sections.check(c, path, KEYS, errors);
        across(c, path, errors);
    }

    static Map<String, Object> write(ControlConfig c) {
        return Sections.write(c, KEYS);
    }
}
