package org.arbiter.sim.cli;

import picocli.CommandLine.Mixin;
import org.arbiter.runtime.cli.ConfigFileOption;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigException;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.loadgen.client.ResultRecorder;
import org.arbiter.loadgen.client.Scenario;
import org.arbiter.sim.SimResult;
import org.arbiter.sim.SimScenario;
import org.arbiter.sim.Simulator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code arbiter sim}: a cluster file and a scenario file, in virtual time. */
@Command(name = "sim", mixinStandardHelpOptions = true,
        description = {"Runs cluster.yaml and a loadgen scenario in the discrete-event simulator (virtual time, the",
                "product's own gateway and GRM code; servers from servers[].sim). Writes the load generator's",
                "summary.json (with the servers' energy), timeseries.jsonl and charts, plus allocations.jsonl and",
                "powers.jsonl (servers on, booting and shutting down, watts and load every report period).",
                "The scenario may list server failures: failures: [{server: s1, at: 200s, recover: 250s}]."})
public final class SimCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    ConfigFileOption config;

    @Option(names = "--scenario", required = true, paramLabel = "FILE", description = "A loadgen scenario.")
    Path scenario;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory.")
    Path out;

    @Option(names = "--no-grm", description = "Keep the configured allocation (no GRM).")
    boolean noGrm;

    @Override
    public Integer call() throws Exception {
        var err = spec.commandLine().getErr();
        ClusterConfig cluster;
        Scenario s;
        try {
            cluster = ConfigLoader.load(config.file());
            s = Scenario.load(scenario);
        } catch (ConfigException e) {
            e.errors().forEach(l -> err.println("sim: " + l));
            return 2;
        }
        SimScenario sc;
        try {
            sc = SimScenario.from(s, cluster, config.file().toString());
        } catch (ConfigException e) {
            e.errors().forEach(l -> err.println("sim: " + l));
            return 2;
        }
        List<SimScenario.Phase> phases = sc.phases();
        ResultRecorder recorder = new ResultRecorder(cluster.classes().stream().map(c -> c.name()).toList(),
                phases.stream().map(SimScenario.Phase::name).toList(),
                phases.stream().map(SimScenario.Phase::durationSeconds).toList(),
                Math.max(1.0, sc.totalSeconds() / 500));
        err.printf("sim: %d phases, %.0f simulated seconds, %d gateways, %d servers%n", phases.size(), sc.totalSeconds(),
                cluster.gateways().size(), cluster.servers().size());
        SimResult r = Simulator.of(cluster, sc, noGrm ? Simulator.Control.CONFIGURED : Simulator.Control.GRM).recordingInto(recorder).run();
        recorder.write(out, sc.totalSeconds());
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        // summary.json: the recorder's, with the simulator's speed and the servers' energy
        SimSummary summary = SimSummary.of(recorder.summary(sc.totalSeconds()), r, sc.totalSeconds());
        json.writeValue(out.resolve("summary.json").toFile(), summary);
        ObjectMapper line = new ObjectMapper();
        try (Writer w = Files.newBufferedWriter(out.resolve("allocations.jsonl"), StandardCharsets.UTF_8)) {
            for (SimResult.AllocationPoint a : r.allocations()) {
                w.write(line.writeValueAsString(a));
                w.write('\n');
            }
        }
        try (Writer w = Files.newBufferedWriter(out.resolve("powers.jsonl"), StandardCharsets.UTF_8)) {
            for (SimResult.PowerPoint p : r.power()) {
                w.write(line.writeValueAsString(p));
                w.write('\n');
            }
        }
        spec.commandLine().getOut().printf("wrote %s (%d requests, %.0f simulated requests per wall second)%n",
                out.resolve("summary.json"), r.simulatedRequests(), r.requestsPerWallSecond());
        return 0;
    }
}
