package org.arbiter.grm.cli;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.arbiter.common.config.Choice;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.Node;
import org.arbiter.common.utility.UtilityFunction;
import org.arbiter.grm.GrmSolver;
import org.arbiter.grm.Problem;
import org.arbiter.grm.ProblemException;
import org.arbiter.grm.Solution;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code arbiter solve}: one optimisation from a JSON file, for "what would the GRM do with
 * these numbers?". Input and output formats are in docs/grm.md.
 */
@Command(name = "solve", mixinStandardHelpOptions = true,
        description = {"Runs the GRM's optimiser once on the flows in a JSON file and prints the allocation as JSON.",
                "Exit 2 with one line per problem (JSON path and rule) when the input is wrong or infeasible."})
public final class SolveCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @Spec
    CommandSpec spec;

    @Option(names = "--input", required = true, paramLabel = "FILE", description = "The problem, as JSON.")
    Path input;

    @Option(names = "--combine", paramLabel = "sum|min", description = "Overrides the file's combine.")
    String combine;

    @Option(names = "--granularity", paramLabel = "Q", description = "Overrides the file's granularity (weights in units of 1/Q).")
    Integer granularity;

    @Override
    public Integer call() throws IOException {
        PrintWriter err = spec.commandLine().getErr();
        JsonNode root;
        try {
            root = JSON.readTree(Files.readString(input));
        } catch (NoSuchFileException e) {
            err.println(input + ": no such file");
            return 2;
        } catch (JacksonException e) {
            err.println(input + ": not valid JSON at line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr() + " (" + e.getOriginalMessage() + ")");
            return 2;
        }
        List<String> errors = new ArrayList<>();
        Problem problem = read(root, errors);
        if (!errors.isEmpty()) {
            errors.forEach(err::println);
            return 2;
        }
        Solution s;
        long started = System.nanoTime();
        try {
            s = GrmSolver.solve(problem);
        } catch (ProblemException e) {
            e.errors().forEach(err::println);
            return 2;
        }
        double millis = (System.nanoTime() - started) / 1e6;
        spec.commandLine().getOut().println(JSON.writeValueAsString(output(problem, s, millis)));
        spec.commandLine().getOut().flush();
        return 0;
    }

    Problem read(JsonNode root, List<String> errors) {
        Node n = Node.root(root, errors);
        ControlConfig.Combine comb = n.choice("combine", ControlConfig.Combine.class, ControlConfig.Combine.MIN);
        if (combine != null) {
            Optional<ControlConfig.Combine> flag = Choice.find(ControlConfig.Combine.class, combine);
            if (flag.isEmpty()) {
                errors.add("--combine: " + combine + " (expected: one of " + Choice.list(ControlConfig.Combine.class) + ")");
            } else {
                comb = flag.get();
            }
        }
        int q = n.integer("granularity", 1, v -> v >= 1 && v <= 1000, "1..1000");
        if (granularity != null) {
            if (granularity < 1 || granularity > 1000) {
                errors.add("--granularity: " + granularity + " (expected: 1..1000)");
            }
            q = granularity;
        }
        double minWeight = n.number("minWeight", 1, v -> v >= 0, ">= 0");
        ControlConfig.Prediction prediction = n.choice("prediction", ControlConfig.Prediction.class,
                ControlConfig.Prediction.MM1);
        double period = n.number("controlPeriod", 5, v -> v > 0, "> 0");
        double gain = n.number("gain", 1, v -> v >= 0, ">= 0");
        Node liu = n.object("liu");
        double liuK = liu.number("k", 1, v -> v >= 0 && v <= 1000, "0..1000");
        liu.finish();

        List<Problem.Server> servers = new ArrayList<>();
        n.require("servers");
        for (Node s : n.list("servers")) {
            String id = s.require("id") ? s.string("id", null) : null;
            int c = s.require("concurrency") ? s.integer("concurrency", 1, v -> v >= 1, ">= 1") : 1;
            s.finish();
            if (id != null) {
                servers.add(new Problem.Server(id, c));
            }
        }
        if (n.has("servers") && servers.isEmpty()) {
            n.error("servers", "an empty list (expected: at least one server)");
        }
        List<Problem.ClassSpec> classes = new ArrayList<>();
        Map<String, Boolean> classNames = new LinkedHashMap<>();
        n.require("classes");
        for (Node c : n.list("classes")) {
            String name = c.require("name") ? c.string("name", null) : null;
            double target = c.require("target") ? c.number("target", 1, v -> v > 0, "> 0") : 1;
            double phi = c.number("phi", 1, v -> v >= 0, ">= 0");
            double alpha = c.number("alpha", 1, v -> v > 0, "> 0");
            double beta = c.number("beta", 1, v -> v > 0, "> 0");
            double minShare = c.number("minShare", 0, v -> v >= 0 && v <= 1, "between 0 and 1");
            double cap = c.number("responseTimeCap", 10, v -> v > 1, "> 1");
            c.finish();
            if (name != null) {
                classNames.put(name, true);
                classes.add(new Problem.ClassSpec(name, target, UtilityFunction.pacifici(target, phi, alpha, beta),
                        minShare, cap));
            }
        }
        List<Problem.Flow> flows = new ArrayList<>();
        n.require("flows");
        for (Node f : n.list("flows")) {
            String g = f.require("gateway") ? f.string("gateway", null) : null;
            String c = f.require("class") ? f.string("class", null) : null;
            if (c != null && !classNames.containsKey(c)) {
                f.error("class", c + " (expected: one of the classes: " + String.join(", ", classNames.keySet()) + ")");
            }
            double lambda = f.require("arrivalRate") ? f.number("arrivalRate", 0, v -> v >= 0, ">= 0") : 0;
            double t = f.require("responseTime") ? f.number("responseTime", 0, v -> v >= 0, ">= 0") : 0;
            double w = f.require("weight") ? f.number("weight", 1, v -> v > 0, "> 0") : 1;
            double ql = f.number("queueLength", 0, v -> v >= 0, ">= 0");
            f.finish();
            if (g != null && c != null) {
                flows.add(new Problem.Flow(g, c, lambda, t, w, ql));
            }
        }
        n.finish();
        if (!errors.isEmpty()) {
            return null;
        }
        try {
            return new Problem(servers, classes, flows,
                    new Problem.Parameters(
                            switch (comb) {
                                case SUM -> Problem.Combine.SUM;
                                case MIN -> Problem.Combine.MIN;
                            }, q, minWeight,
                            switch (prediction) {
                                case QUEUE_LENGTH -> Problem.Prediction.QUEUE_LENGTH;
                                case LIU -> Problem.Prediction.LIU;
                                case MM1 -> Problem.Prediction.MM1;
                            },
                            period, gain, liuK), Map.of());
        } catch (ProblemException e) {
            errors.addAll(e.errors());
            return null;
        }
    }

    /**
     * What {@code arbiter solve} prints (docs/grm.md), keys in this order. Numbers are rounded to 1e-6.
     *
     * @param combine     min or sum
     * @param weights     w(g,c) by gateway, then class
     * @param serverCaps  N(g,s) by gateway, then server
     * @param predicted   per gateway, then class: the flow's predicted response time and utility
     * @param solveMillis the solver's wall-clock time
     */
    @JsonPropertyOrder({"objective", "combine", "granularity", "weights", "serverCaps", "predicted", "solveMillis"})
    record Output(double objective, String combine, int granularity, Map<String, Map<String, Double>> weights,
                  Map<String, Map<String, Integer>> serverCaps, Map<String, Map<String, Prediction>> predicted,
                  double solveMillis) {
    }

    /** One flow's prediction: t(w) in s and U_c(t(w)). */
    @JsonPropertyOrder({"responseTime", "utility"})
    record Prediction(double responseTime, double utility) {
    }

    static Output output(Problem p, Solution s, double millis) {
        Map<String, Map<String, Prediction>> predicted = new LinkedHashMap<>();
        s.predicted().forEach((id, pr) -> predicted.computeIfAbsent(id.gateway(), g -> new LinkedHashMap<>())
                .put(id.cls(), new Prediction(round(pr.responseTime()), round(pr.utility()))));
        return new Output(round(s.objective()), p.parameters().combine().name().toLowerCase(Locale.ROOT),
                p.parameters().granularity(), s.weights(), s.serverCaps(), predicted, round(millis));
    }

    private static double round(double d) {
        return Math.round(d * 1e6) / 1e6;
    }
}
