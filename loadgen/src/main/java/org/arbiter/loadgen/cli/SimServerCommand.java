package org.arbiter.loadgen.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.arbiter.common.config.Durations;
import org.arbiter.loadgen.model.PowerModel;
import org.arbiter.loadgen.server.SimServer;
import org.arbiter.loadgen.server.SimServerOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code arbiter simserver}: a synthetic HTTP service with a known capacity. */
@Command(name = "simserver", mixinStandardHelpOptions = true,
        description = {"Runs a synthetic HTTP service: an emulated processor-sharing server (no real CPU burnt) or a",
                "real CPU spinner. Admin API on --admin-port: GET /status, POST /power/off, POST /power/on, POST /fault."})
public final class SimServerCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--port", required = true, description = "Request port on 127.0.0.1.")
    int port;

    @Option(names = "--admin-port", description = "Admin port (default: port + 1000).")
    Integer adminPort;

    @Option(names = "--cores", defaultValue = "10", description = "Virtual CPUs (default: ${DEFAULT-VALUE}).")
    int cores;

    @Option(names = "--mean-demand", defaultValue = "1s", description = "Mean exponential service demand (default: ${DEFAULT-VALUE}).")
    String meanDemand;

    @Option(names = "--demand", description = "Per-class mean demand, e.g. premium=1s,basic=500ms.")
    String demand;

    @Option(names = "--io-fraction", defaultValue = "0", description = "Share of the demand that holds no CPU.")
    double ioFraction;

    @Option(names = "--overhead", defaultValue = "0", description = "Efficiency loss per request above the knee.")
    double overhead;

    @Option(names = "--knee", defaultValue = "10", description = "Concurrency above which overhead applies.")
    int knee;

    @Option(names = "--mode", defaultValue = "emulated", description = "emulated or real.")
    String mode;

    @Option(names = "--boot-delay", defaultValue = "60s", description = "OFF → ON (default: ${DEFAULT-VALUE}).")
    String bootDelay;

    @Option(names = "--shutdown-delay", defaultValue = "60s", description = "ON → OFF (default: ${DEFAULT-VALUE}).")
    String shutdownDelay;

    @Option(names = "--time-scale", defaultValue = "1", description = "Multiplies every duration.")
    double timeScale;

    @Option(names = "--class-header", defaultValue = "X-Class", description = "Header naming the class.")
    String classHeader;

    @Option(names = "--watts", defaultValue = "0,60,60,65", paramLabel = "OFF,BOOT,IDLE,BUSY",
            description = "Power draw by state (default: ${DEFAULT-VALUE}, 000 §7.5).")
    String watts;

    @Option(names = "--seed", defaultValue = "1", description = "Random seed of the demands (default: ${DEFAULT-VALUE}).")
    long seed;

    private static double seconds(String option, String text) {
        try {
            return Durations.parseSeconds(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + ": " + text + " (expected: a duration such as 250ms, 5s or 2m)");
        }
    }

    @Override
    public Integer call() throws InterruptedException {
        var err = spec.commandLine().getErr();
        SimServerOptions o;
        try {
            if (!(timeScale > 0)) {
                throw new IllegalArgumentException("--time-scale: " + timeScale + " (expected: > 0)");
            }
            if (!mode.equals("emulated") && !mode.equals("real")) {
                throw new IllegalArgumentException("--mode: " + mode + " (expected: emulated or real)");
            }
            Map<String, Double> perClass = new LinkedHashMap<>();
            if (demand != null && !demand.isBlank()) {
                for (String kv : demand.split(",")) {
                    String[] p = kv.split("=", 2);
                    if (p.length != 2) {
                        throw new IllegalArgumentException("--demand: " + kv + " (expected: class=duration, e.g. premium=1s)");
                    }
                    perClass.put(p[0].trim(), seconds("--demand", p[1].trim()) * timeScale);
                }
            }
            String[] w = watts.split(",");
            if (w.length != 4) {
                throw new IllegalArgumentException("--watts: " + watts + " (expected: four numbers off,boot,idle,busy)");
            }
            PowerModel.Watts pw;
            try {
                pw = new PowerModel.Watts(Double.parseDouble(w[0].trim()), Double.parseDouble(w[1].trim()),
                        Double.parseDouble(w[2].trim()), Double.parseDouble(w[3].trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--watts: " + watts + " (expected: four numbers off,boot,idle,busy)");
            }
            int admin = adminPort != null ? adminPort : port + 1000;
            o = new SimServerOptions(port, admin, cores, seconds("--mean-demand", meanDemand) * timeScale, perClass,
                    ioFraction, overhead, knee, mode.equals("real"), seconds("--boot-delay", bootDelay) * timeScale,
                    seconds("--shutdown-delay", shutdownDelay) * timeScale, classHeader, pw, seed);
        } catch (IllegalArgumentException e) {
            err.println("simserver: " + e.getMessage());
            return 2;
        }
        SimServer s;
        try {
            s = SimServer.start(o);
        } catch (RuntimeException e) {
            err.println("simserver: cannot listen on 127.0.0.1:" + o.port() + " or " + o.adminPort() + " (" + e.getMessage() + ")");
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            s.close();
            stopped.countDown();
        }, "simserver-shutdown"));
        spec.commandLine().getOut().println("simserver ready on 127.0.0.1:" + s.port() + " (admin 127.0.0.1:" + s.adminPort() + ")");
        spec.commandLine().getOut().flush();
        stopped.await();
        return 0;
    }
}
