package org.arbiter.dist;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import org.arbiter.common.config.Choice;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.Durations;
import org.arbiter.dist.demo.Demo;
import org.arbiter.dist.demo.DemoPlan;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code arbiter demo}: the whole product in one process. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Runs 003 §V-B's experiment live in one process: embedded Kafka, a GRM, two gateways, two",
                "simservers (N_s = 10) and closed-loop load in four phases, every duration scaled. Prints a table",
                "per phase and writes DIR/summary.json and charts. Ctrl-C stops everything cleanly."})
final class DemoCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--duration", defaultValue = "120s", description = "Wall-clock length, the four phases filling it (default: ${DEFAULT-VALUE}).")
    String duration;

    @Option(names = "--time-scale", defaultValue = "0.05", description = "Multiplies every duration of the paper's experiment (default: ${DEFAULT-VALUE}: 1 s becomes 50 ms).")
    double timeScale;

    @Option(names = "--out", defaultValue = "demo-out", description = "Output directory (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--servers", defaultValue = "1",
            description = "Simservers with N_s = 10 (default: ${DEFAULT-VALUE}, the paper's load: (20,20) clients saturate it).")
    int servers;

    @Option(names = "--console-port", defaultValue = "8090", description = "Port of the web console (default: ${DEFAULT-VALUE}; a free one if taken).")
    int consolePort;

    @Option(names = "--secure",
            description = "Secure the bus: SCRAM users, the StandardAuthorizer and per-role ACLs; the GRM, gateways and "
                    + "console each connect as their own principal, and the demo checks that forbidden writes are refused.")
    boolean secure;

    @Option(names = "--switch",
            description = "Put a real HAProxy (must be installed) in front of the gateways, configured by 'arbiter switch "
                    + "haproxy': the gateways read its PROXY v2 headers and the load reaches them only through it.")
    boolean viaSwitch;

    @Option(names = "--utility-scale", defaultValue = "absolute", paramLabel = "absolute|relative",
            description = {"Both classes' utility.scale: absolute (phi = 1) or relative (phi_c = 1/tau_c, under which",
                    "003's phase B settles at (6,4)) (default: ${DEFAULT-VALUE})."})
    String utilityScale;

    @Override
    public Integer call() throws Exception {
        DemoPlan plan;
        Demo demo;
        try {
            ClassConfig.UtilitySpec.Scale scale = Choice.find(ClassConfig.UtilitySpec.Scale.class, utilityScale)
                    .orElseThrow(() -> new IllegalArgumentException("--utility-scale: " + utilityScale
                            + " (expected: absolute or relative)"));
            plan = new DemoPlan(Durations.parseSeconds(duration), timeScale, scale);
            demo = new Demo(plan, servers, consolePort, out, spec.commandLine().getErr(), secure, viaSwitch);
        } catch (IllegalArgumentException e) {
            throw new ArbiterCommand.UsageException(e.getMessage());
        }
        AtomicBoolean done = new AtomicBoolean();
        Thread hook = new Thread(() -> {
            if (!done.get()) {
                spec.commandLine().getErr().println("demo: interrupted, stopping");
                demo.close();
            }
        }, "demo-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            demo.run();
            return 0;
        } finally {
            done.set(true);
            demo.close();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // already shutting down
            }
        }
    }
}
