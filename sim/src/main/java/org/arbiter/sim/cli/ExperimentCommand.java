package org.arbiter.sim.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.arbiter.sim.experiment.Charts;
import org.arbiter.sim.experiment.Experiments;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code arbiter experiment NAME}: 003 §V's experiments, in the simulator. */
@Command(name = "experiment", mixinStandardHelpOptions = true,
        description = {"Runs one of 003's reference experiments in the simulator (virtual time) and writes",
                "DIR/result.json and PNG charts. NAME: concurrency (Fig. 7), phases (Fig. 8-12), regions (Fig. 13-15),",
                "energy (000 §7.5: a compressed diurnal day; --seconds does not apply)."})
public final class ExperimentCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "NAME", description = "concurrency, phases, regions or energy")
    String name;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Where result.json and the charts go.")
    Path out;

    @Option(names = "--seed", defaultValue = "1", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--live", description = "phases only: run over a real Kafka broker, GRM, gateway and simserver, durations scaled.")
    boolean live;

    @Option(names = "--time-scale", defaultValue = "0.05", description = "With --live: multiplies every duration.")
    double timeScale;

    @Option(names = "--seconds", defaultValue = "600", description = "Simulated seconds per phase or point (default: ${DEFAULT-VALUE}).")
    double seconds;

    private Map<String, Object> livePhases(java.io.PrintWriter err) {
        try {
            Files.createDirectories(out);
            Map<String, Object> live = org.arbiter.sim.experiment.LivePhases.run(seed, seconds, timeScale, out, err::println);
            Map<String, Object> simulated = Experiments.phases(seed, seconds, s -> { });
            live.put("simulated", simulated.get("phases"));
            return live;
        } catch (Exception e) {
            throw new IllegalStateException("live phases failed: " + e, e);
        }
    }

    @Override
    public Integer call() throws IOException {
        if (live && !name.equals("phases")) {
            spec.commandLine().getErr().println("experiment: --live is available for phases only in this build "
                    + "(concurrency and regions run in the simulator)");
            return 2;
        }
        if (live && !(timeScale > 0 && timeScale <= 1)) {
            spec.commandLine().getErr().println("experiment: --time-scale: " + timeScale + " (expected: 0 < x <= 1)");
            return 2;
        }
        if (!(seconds > 0)) {
            spec.commandLine().getErr().println("experiment: --seconds: " + seconds + " (expected: > 0)");
            return 2;
        }
        var err = spec.commandLine().getErr();
        Map<String, Object> result = switch (name) {
            case "concurrency" -> Experiments.concurrency(seed, seconds, err::println);
            case "phases" -> live ? livePhases(err) : Experiments.phases(seed, seconds, err::println);
            case "regions" -> Experiments.regions(seed, seconds, err::println);
            case "energy" -> org.arbiter.sim.experiment.EnergyExperiment.run(seed, err::println);
            default -> null;
        };
        if (result == null) {
            err.println("experiment: " + name + " (expected: one of concurrency, phases, regions, energy)");
            return 2;
        }
        Files.createDirectories(out);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.resolve("result.json").toFile(), result);
        List<Path> charts = new ArrayList<>(Charts.write(name, result, out));
        spec.commandLine().getOut().println("wrote " + out.resolve("result.json") + (charts.isEmpty() ? "" : " and " + charts));
        return 0;
    }
}
