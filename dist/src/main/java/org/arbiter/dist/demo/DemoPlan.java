package org.arbiter.dist.demo;

import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConsoleConfig;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.sim.experiment.PaperPhase;

/**
 * The demo's experiment, 003 §V-B, with every duration multiplied by the time scale: premium
 * (τ = 2 s) and basic (τ = 3 s), φ = α = β = 1, combine min; servers with N_s = 10 and service
 * demand Exp(1 s) (one by default: 003 §V-B's load, where (20,20) clients saturate it); two
 * gateways; four phases of closed-loop clients (premium, basic) =
 * (5,5), (20,20), (5,20), (20,5) with think time Exp(1 s), filling the duration. Pure: it only
 * computes the configuration (built, not written as text) and the scenario.
 *
 * @param durationSeconds wall-clock length of the whole run
 * @param timeScale       multiplies every duration of 003 §V-B's experiment
 * @param utilityScale    both classes' {@code utility.scale}: absolute (φ = 1, the default) or relative
 *                        (φ_c = 1/τ_c, the reading under which 003 §V-B's allocations hold; docs/experiments.md)
 */
public record DemoPlan(double durationSeconds, double timeScale, ClassConfig.UtilitySpec.Scale utilityScale) {

    /** On the absolute utility scale. */
    public DemoPlan(double durationSeconds, double timeScale) {
        this(durationSeconds, timeScale, ClassConfig.UtilitySpec.Scale.ABSOLUTE);
    }

    /** The demo's gateways, in order. */
    static final List<String> GATEWAYS = List.of("g1", "g2");

    /** One phase: its name and clients per class. */
    public record Phase(String name, int premium, int basic) {
    }

    /**
     * The clients' mean think time in paper seconds (003 §V: Exp(1 s)). The load generator's
     * scenario and the classes' {@code thinkTime} both carry it, so the GRM models the demo's clients
     * as the closed loop they are (docs/grm.md, "Closed-loop clients").
     */
    public static final double THINK_SECONDS = 1;

    /** 003 §V-B's four phases ({@link PaperPhase}, the one list the experiments use too). */
    public static final List<Phase> PHASES = Arrays.stream(PaperPhase.values())
            .map(p -> new Phase(p.name(), p.premiumClients(), p.basicClients())).toList();

    public DemoPlan {
        java.util.Objects.requireNonNull(utilityScale, "utilityScale");
        if (!(durationSeconds > 0)) {
            throw new IllegalArgumentException("--duration: " + durationSeconds + " (expected: > 0)");
        }
        if (!(timeScale > 0 && timeScale <= 1)) {
            throw new IllegalArgumentException("--time-scale: " + timeScale + " (expected: 0 < x <= 1)");
        }
    }

    /** Wall seconds of one phase. */
    public double phaseSeconds() {
        return durationSeconds / PHASES.size();
    }

    /** A paper duration in wall seconds. */
    public double scaled(double paperSeconds) {
        return paperSeconds * timeScale;
    }

    /**
     * The demo's cluster.
     *
     * @param bootstrap         the embedded broker
     * @param serverPorts       the simservers' request ports
     * @param serverAdminPorts  the simservers' admin ports, in the same order
     * @param gatewayPorts      request and admin ports: g1, g1 admin, g2, g2 admin
     * @param consolePort       the console's port
     * @param adminPasswordHash the PBKDF2 hash of console user {@code admin}'s password, or null for no user
     */
    public ClusterConfig cluster(String bootstrap, int[] serverPorts, int[] serverAdminPorts, int[] gatewayPorts,
                                 int consolePort, String adminPasswordHash) {
        ClassConfig.QueueConfig queue = new ClassConfig.QueueConfig(1000, scaled(60));
        ClusterConfig.Builder b = ClusterConfig.builder()
                .addClass(ClassConfig.builder("premium", scaled(2)).utility(new ClassConfig.UtilitySpec(1, 1, 1, utilityScale))
                        .matchHeader("X-Class", "premium").queue(queue).thinkTimeSeconds(scaled(THINK_SECONDS)).build())
                .addClass(ClassConfig.builder("basic", scaled(3)).utility(new ClassConfig.UtilitySpec(1, 1, 1, utilityScale))
                        .isDefault(true).queue(queue).thinkTimeSeconds(scaled(THINK_SECONDS)).build());
        ServerConfig.SimSpec sim = ServerConfig.SimSpec.builder().cores(10).meanDemandSeconds(scaled(1)).build();
        for (int i = 0; i < serverPorts.length; i++) {
            b.addServer(ServerConfig.builder("s" + (i + 1), URI.create("http://127.0.0.1:" + serverPorts[i]))
                    .adminUrl(URI.create("http://127.0.0.1:" + serverAdminPorts[i])).concurrency(10).sim(sim).build());
        }
        List<ConsoleConfig.User> users = adminPasswordHash == null ? List.of()
                : List.of(new ConsoleConfig.User("admin", adminPasswordHash, ConsoleConfig.Role.ADMIN));
        return b.addGateway(GatewayConfig.builder(GATEWAYS.get(0)).port(gatewayPorts[0]).adminPort(gatewayPorts[1]).build())
                .addGateway(GatewayConfig.builder(GATEWAYS.get(1)).port(gatewayPorts[2]).adminPort(gatewayPorts[3]).build())
                .dispatch(DispatchConfig.builder().scheduler(DispatchConfig.Scheduler.WRR)
                        .balancer(DispatchConfig.Balancer.LEAST_OUTSTANDING).backendTimeoutSeconds(scaled(60)).build())
                .control(ControlConfig.builder().periodSeconds(scaled(5)).reportPeriodSeconds(scaled(5))
                        .statsWindowSeconds(scaled(30)).combine(ControlConfig.Combine.MIN).granularity(1).minWeight(1).build())
                .kafka(KafkaConfig.builder().bootstrap(bootstrap).topicPrefix("demo.").build())
                .console(ConsoleConfig.builder().port(consolePort).publicRead(true).users(users).build())
                .build();
    }

    /** The load generator's scenario: the four phases, closed loop, think Exp(1 s). */
    public String scenarioYaml() {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, """
                classes:
                  premium: {headers: {X-Class: premium}, path: /, method: GET}
                  basic:   {headers: {X-Class: basic}, path: /, method: GET}
                think: %sms
                timeout: %sms
                timeScale: 1
                seed: 1
                phases:
                """, ms(THINK_SECONDS), ms(120)));
        for (Phase p : PHASES) {
            b.append(String.format(Locale.ROOT, "  - {name: %s, duration: %sms, clients: {premium: %d, basic: %d}}%n",
                    p.name(), fmt(phaseSeconds() * 1000), p.premium(), p.basic()));
        }
        return b.toString();
    }

    private String ms(double paperSeconds) {
        return fmt(scaled(paperSeconds) * 1000);
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.3f", v);
    }
}
