package org.arbiter.loadgen.cli;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.arbiter.common.config.ConfigException;
import org.arbiter.loadgen.client.LoadGenerator;
import org.arbiter.loadgen.client.Scenario;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code arbiter loadgen}: closed- and open-loop load from a scenario file. */
@Command(name = "loadgen", mixinStandardHelpOptions = true,
        description = {"Runs a load scenario (closed-loop clients, Poisson, Pareto on/off, diurnal) against one or more",
                "targets and writes DIR/summary.json, DIR/timeseries.jsonl and PNG charts. Progress on stderr."})
public final class LoadgenCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--scenario", required = true, paramLabel = "FILE", description = "Scenario YAML.")
    Path scenario;

    @Option(names = "--target", required = true, split = ",", paramLabel = "URL", description = "Target base URLs, comma-separated.")
    List<String> targets;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Output directory.")
    Path out;

    @Override
    public Integer call() throws Exception {
        var err = spec.commandLine().getErr();
        Scenario s;
        try {
            s = Scenario.load(scenario);
        } catch (ConfigException e) {
            e.errors().forEach(l -> err.println("loadgen: " + l));
            return 2;
        }
        if (!s.failures().isEmpty()) {
            err.println("loadgen: failures: " + s.failures().size() + " server failure(s) (expected: none; only `arbiter sim`"
                    + " simulates them; live, crash a simserver with POST /fault {\"kind\": \"crash\"} on its admin port)");
            return 2;
        }
        List<URI> uris = new ArrayList<>();
        for (String t : targets) {
            try {
                URI u = new URI(t);
                if (!"http".equals(u.getScheme()) || u.getHost() == null) {
                    throw new URISyntaxException(t, "not http://host:port");
                }
                uris.add(u);
            } catch (URISyntaxException e) {
                err.println("loadgen: --target: " + t + " (expected: http://host:port)");
                return 2;
            }
        }
        new LoadGenerator(s, uris, err).run(out);
        spec.commandLine().getOut().println("wrote " + out.resolve("summary.json"));
        return 0;
    }
}
