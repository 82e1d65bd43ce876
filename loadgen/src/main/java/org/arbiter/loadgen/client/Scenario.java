package org.arbiter.loadgen.client;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ConfigException;
import org.arbiter.common.config.Node;

/**
 * A load scenario (the loadgen YAML contract): request shape per class, think time, timeout, time
 * scale, seed and phases. Every duration in the file is multiplied by {@code timeScale} when
 * read. Validation reports every problem at once with its YAML path.
 *
 * @param classes        per class: headers, path, method
 * @param thinkSeconds   mean exponential think time of closed-loop clients (scaled)
 * @param timeoutSeconds a request with no answer by then is lost (scaled)
 * @param seed           random seed
 * @param phases         in order
 * @param failures       server failures (simulator only: {@code arbiter sim}); empty for live runs
 */
public record Scenario(Map<String, RequestShape> classes, double thinkSeconds, double timeoutSeconds, long seed,
                       List<Phase> phases, List<Failure> failures) {

    public Scenario {
        failures = List.copyOf(failures);
    }

    /**
     * A server failure ({@code failures[]}, simulator only): server {@code server} (a servers[].id of the
     * cluster) fails at {@code atSeconds} from the start, losing every request it holds, and comes back
     * empty at {@code recoverSeconds} (+∞: never).
     */
    public record Failure(String server, double atSeconds, double recoverSeconds) {
    }

    /** What a request of a class looks like. */
    public record RequestShape(Map<String, String> headers, String path, String method, double targetSeconds) {

        /** GET / with {@code headers} and a target of {@code targetSeconds} (0: none), as YAML's defaults give. */
        public static RequestShape get(Map<String, String> headers, double targetSeconds) {
            return new RequestShape(Map.copyOf(headers), "/", "GET", targetSeconds);
        }
    }

    /** Pareto on/off source parameters (001). */
    public record Pareto(double shape, double onSeconds, double offSeconds, double intervalSeconds) {
    }

    /**
     * A compressed day: rate between trough and peak, sinusoid-like over the phase, optionally multiplied by
     * noise ({@link org.arbiter.loadgen.workload.ArrivalProcess#diurnal(double, double, double, double, double, double, long)}).
     *
     * @param noise        σ of the log-normal factor (mean 1) the rate is multiplied by (0: a smooth day)
     * @param noiseSeconds how long one factor holds
     * @param noiseSeed    fixes the factors, so every run of one day sees the same noise
     */
    public record Diurnal(double peak, double trough, double noise, double noiseSeconds, long noiseSeed) {

        /** A smooth day. */
        public Diurnal(double peak, double trough) {
            this(peak, trough, 0, 60, 0);
        }

        /** The same day with every duration multiplied and every rate divided by {@code scale}. */
        Diurnal scaled(double scale) {
            return new Diurnal(peak / scale, trough / scale, noise, noiseSeconds * scale, noiseSeed);
        }
    }

    /**
     * @param clients closed-loop clients per class
     * @param rates   Poisson req/s per class
     * @param pareto  on/off sources per class
     * @param diurnal diurnal rates per class
     */
    public record Phase(String name, double durationSeconds, Map<String, Integer> clients, Map<String, Double> rates,
                        Map<String, Pareto> pareto, Map<String, Diurnal> diurnal) {
    }

    /**
     * This scenario with every duration multiplied and every rate divided by {@code scale}: what
     * {@code timeScale: scale} does in YAML (think, timeout, targets, phase durations, Pareto on/off
     * and interval, failure times; rates, diurnal peak and trough).
     */
    public Scenario withTimeScale(double scale) {
        if (!(scale > 0)) {
            throw new IllegalArgumentException("timeScale: " + scale + " (expected: > 0)");
        }
        Map<String, RequestShape> c = new LinkedHashMap<>();
        classes.forEach((k, v) -> c.put(k, new RequestShape(v.headers(), v.path(), v.method(), v.targetSeconds() * scale)));
        List<Phase> ps = new ArrayList<>();
        for (Phase p : phases) {
            Map<String, Double> rates = new LinkedHashMap<>();
            p.rates().forEach((k, v) -> rates.put(k, v / scale));
            Map<String, Pareto> pareto = new LinkedHashMap<>();
            p.pareto().forEach((k, v) -> pareto.put(k, new Pareto(v.shape(), v.onSeconds() * scale, v.offSeconds() * scale,
                    v.intervalSeconds() * scale)));
            Map<String, Diurnal> diurnal = new LinkedHashMap<>();
            p.diurnal().forEach((k, v) -> diurnal.put(k, v.scaled(scale)));
            ps.add(new Phase(p.name(), p.durationSeconds() * scale, p.clients(), rates, pareto, diurnal));
        }
        List<Failure> fs = failures.stream().map(f -> new Failure(f.server(), f.atSeconds() * scale,
                f.recoverSeconds() * scale)).toList();
        return new Scenario(c, thinkSeconds * scale, timeoutSeconds * scale, seed, ps, fs);
    }

    public double totalSeconds() {
        return phases.stream().mapToDouble(Phase::durationSeconds).sum();
    }

    public static Scenario load(Path file) {
        try {
            return parse(Files.readString(file));
        } catch (NoSuchFileException e) {
            throw new ConfigException(List.of(file + ": no such file"));
        } catch (IOException e) {
            throw new ConfigException(List.of(file + ": cannot read (" + e.getMessage() + ")"));
        }
    }

    public static Scenario parse(String yaml) {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(yaml);
        } catch (JacksonException e) {
            throw new ConfigException(List.of("(yaml): not valid YAML (" + e.getOriginalMessage() + ")"));
        }
        List<String> errors = new ArrayList<>();
        Node n = Node.root(root, errors);
        double scale = n.number("timeScale", 1, v -> v > 0, "> 0");
        Map<String, RequestShape> classes = new LinkedHashMap<>();
        n.require("classes");
        n.objectMap("classes").forEach((name, c) -> {
            Map<String, String> headers = c.stringMap("headers");
            String path = c.string("path", "/");
            String method = c.choice("method", "GET", "GET", "POST", "PUT", "DELETE", "HEAD");
            double target = c.duration("target", 0, v -> v >= 0, ">= 0");
            c.finish();
            classes.put(name, new RequestShape(headers, path, method, target));
        });
        double think = n.duration("think", 1, v -> v >= 0, ">= 0") * scale;
        classes.replaceAll((k, v) -> new RequestShape(v.headers(), v.path(), v.method(), v.targetSeconds() * scale));
        double timeout = n.duration("timeout", 60, v -> v > 0, "> 0") * scale;
        long seed = (long) n.number("seed", 1, v -> true, "a number");
        List<Phase> phases = new ArrayList<>();
        n.require("phases");
        for (Node p : n.list("phases")) {
            String name = p.string("name", "phase" + (phases.size() + 1));
            double duration = p.require("duration") ? p.duration("duration", 1, v -> v > 0, "> 0") * scale : 1;
            Map<String, Integer> clients = new LinkedHashMap<>();
            Node cn = p.object("clients");
            for (String c : classes.keySet()) {
                if (cn.has(c)) {
                    clients.put(c, cn.integer(c, 0, v -> v >= 0, ">= 0"));
                }
            }
            cn.finish();
            Map<String, Double> rates = new LinkedHashMap<>();
            Node rn = p.object("rate");
            for (String c : classes.keySet()) {
                if (rn.has(c)) {
                    rates.put(c, rn.number(c, 0, v -> v >= 0, ">= 0") / scale);
                }
            }
            rn.finish();
            Map<String, Pareto> pareto = new LinkedHashMap<>();
            p.objectMap("pareto").forEach((c, pn) -> {
                if (!classes.containsKey(c)) {
                    pn.error("unknown class (expected: one of " + String.join(", ", classes.keySet()) + ")");
                }
                pareto.put(c, new Pareto(pn.number("shape", 1.5, v -> v > 1, "> 1"),
                        pn.duration("on", 1, v -> v > 0, "> 0") * scale, pn.duration("off", 10, v -> v > 0, "> 0") * scale,
                        pn.duration("interval", 0.1, v -> v > 0, "> 0") * scale));
                pn.finish();
            });
            Map<String, Diurnal> diurnal = new LinkedHashMap<>();
            p.objectMap("diurnal").forEach((c, dn) -> {
                if (!classes.containsKey(c)) {
                    dn.error("unknown class (expected: one of " + String.join(", ", classes.keySet()) + ")");
                }
                double peak = dn.number("peak", 1, v -> v >= 0, ">= 0") / scale;
                double trough = dn.number("trough", 0, v -> v >= 0, ">= 0") / scale;
                dn.finish();
                diurnal.put(c, new Diurnal(peak, trough));
            });
            p.finish();
            phases.add(new Phase(name, duration, clients, rates, pareto, diurnal));
        }
        if (n.has("phases") && phases.isEmpty() && errors.isEmpty()) {
            n.error("phases", "an empty list (expected: at least one phase)");
        }
        List<Failure> failures = new ArrayList<>();
        for (Node f : n.list("failures")) {
            String server = f.require("server") ? f.string("server", "") : "";
            if (f.has("server") && server.isBlank()) {
                f.error("server", "'' (expected: a server id)");
            }
            double at = f.require("at") ? f.duration("at", 0, v -> v >= 0, ">= 0") * scale : 0;
            double recover = Double.POSITIVE_INFINITY;
            if (f.has("recover")) {
                double r = f.duration("recover", 0, v -> v > 0, "> 0") * scale;
                if (f.has("at") && !(r > at)) {
                    f.error("recover", f.rawValue("recover").asText() + " (expected: later than at, "
                            + f.rawValue("at").asText() + ")");
                }
                recover = r;
            }
            f.finish();
            failures.add(new Failure(server, at, recover));
        }
        n.finish();
        if (!errors.isEmpty()) {
            throw new ConfigException(errors);
        }
        return new Scenario(classes, think, timeout, seed, phases, failures);
    }
}
