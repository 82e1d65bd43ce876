package org.arbiter.common.config;

import static org.arbiter.common.config.ConfigKey.choice;
import static org.arbiter.common.config.ConfigKey.integer;
import static org.arbiter.common.config.ConfigKey.string;

import java.util.List;
import java.util.Map;

/**
 * The {@code grm} section, declared once: what every GRM process reads (its admin endpoint).
 *
 * <p>Stateless and thread-safe.
 */
final class GrmSection {

    private GrmSection() {
    }

    static final ConfigKey<GrmConfig, String> HOST = string("host", GrmConfig::host, "127.0.0.1",
            "where the admin endpoint listens").docDefault("127.0.0.1").docRule("an address to bind");
    static final ConfigKey<GrmConfig, Integer> ADMIN_PORT = integer("adminPort", GrmConfig::adminPort, 9190,
            v -> v >= 0 && v <= 65535, "0..65535",
            "`GET /metrics` (Prometheus text) and `GET /health`; `arbiter grm --admin-port` overrides it")
            .docRule("0..65535 (0 = any free port, printed at start)");

    static final ConfigKey<GrmConfig, GrmConfig.Model> MODEL = choice("model", GrmConfig::model, GrmConfig.Model.class,
            GrmConfig.Model.FLOW, "how a flow's response time is predicted against its weight: flow, the project's model "
                    + "(w̃ the slots the flow held, the slot model, closed-loop arrivals with `thinkTime`, a class's flows "
                    + "pooled across gateways); paper, 003 eq. 8-9 exactly as printed (w̃ the weight in force, λ held at its "
                    + "measured value, one M/M/1 per flow; needs `control.granularity: 1` and `control.prediction: mm1`) "
                    + "([grm.md](grm.md#the-papers-model-grmmodel-paper))");

    static final List<ConfigKey<GrmConfig, ?>> KEYS = List.of(HOST, ADMIN_PORT, MODEL);

    static GrmConfig read(Node gr) {
        String host = HOST.read(gr);
        if (host != null && host.isBlank()) {
            gr.error("host", "\"" + host + "\" (expected: an address to bind)");
            host = HOST.defaultValue();
        }
        int adminPort = ADMIN_PORT.read(gr);
        GrmConfig.Model model = MODEL.read(gr);
        gr.finish();
        return new GrmConfig(host == null ? HOST.defaultValue() : host, adminPort, model);
    }

    /**
     * The rule across sections: {@code grm.model: paper} is 003 eq. 8-9 as printed, integer weights, so it needs
     * {@code control.granularity: 1} and {@code control.prediction: mm1}. @return what is wrong, or null
     */
    static String acrossProblem(GrmConfig g, ControlConfig control) {
        if (g.model() != GrmConfig.Model.PAPER || control.granularity() == 1
                && control.prediction() == ControlConfig.Prediction.MM1) {
            return null;
        }
        return "paper with control.granularity " + control.granularity() + " and control.prediction "
                + control.prediction() + " (expected: granularity 1 and prediction mm1: 003 eq. 8-9 as printed, "
                + "integer weights)";
    }

    /** {@link #acrossProblem} recorded at {@code grm.model}. */
    static void across(GrmConfig g, ControlConfig control, Node root) {
        String why = acrossProblem(g, control);
        if (why != null) {
            root.error("grm.model", why);
        }
    }

    static void check(GrmConfig g, String path, List<String> errors) {
        Sections.check(g, path, KEYS, errors);
        if (g.host() == null || g.host().isBlank()) {
            errors.add(Sections.path(path, "host") + ": \"" + g.host() + "\" (expected: an address to bind)");
        }
    }

    static Map<String, Object> write(GrmConfig g) {
        return Sections.write(g, KEYS);
    }
}
