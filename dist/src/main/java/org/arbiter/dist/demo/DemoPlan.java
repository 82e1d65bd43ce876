package org.arbiter.dist.demo;

import java.util.List;
import java.util.Locale;

/**
 * The demo's experiment, 003 §V-B, with every duration multiplied by the time scale: premium
 * (τ = 2 s) and basic (τ = 3 s), φ = α = β = 1, combine min; servers with N_s = 10 and service
 * demand Exp(1 s) (one by default: 003 §V-B's load, where (20,20) clients saturate it); two
 * gateways; four phases of closed-loop clients (premium, basic) =
 * (5,5), (20,20), (5,20), (20,5) with think time Exp(1 s), filling the duration. Pure: it only
 * computes the configuration and the scenario as text.
 *
 * @param durationSeconds wall-clock length of the whole run
 * @param timeScale       multiplies every duration of 003 §V-B's experiment
 */
public record DemoPlan(double durationSeconds, double timeScale) {

    /** One phase: its name and clients per class. */
    public record Phase(String name, int premium, int basic) {
    }

    public static final List<Phase> PHASES = List.of(
            new Phase("A", 5, 5), new Phase("B", 20, 20), new Phase("C", 5, 20), new Phase("D", 20, 5));

    public DemoPlan {
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
     * cluster.yaml for the demo.
     *
     * @param bootstrap     the embedded broker
     * @param serverPorts   the two simservers' request ports
     * @param gatewayPorts  request and admin ports: g1, g1 admin, g2, g2 admin
     * @param consolePort   the console's port
     */
    public String clusterYaml(String bootstrap, int[] serverPorts, int[] gatewayPorts, int consolePort) {
        return clusterYaml(bootstrap, serverPorts, gatewayPorts, consolePort, null);
    }

    /** As above, with a console user {@code admin} whose PBKDF2 hash is {@code adminPasswordHash} (or none). */
    public String clusterYaml(String bootstrap, int[] serverPorts, int[] gatewayPorts, int consolePort,
                              String adminPasswordHash) {
        StringBuilder servers = new StringBuilder();
        for (int i = 0; i < serverPorts.length; i++) {
            servers.append(String.format(Locale.ROOT,
                    "  - {id: s%d, url: \"http://127.0.0.1:%d\", adminUrl: \"http://127.0.0.1:%d\", concurrency: 10, sim: {cores: 10, meanDemand: %sms}}%n",
                    i + 1, serverPorts[i], serverPorts[i] + 1000, ms(1)));
        }
        return String.format(Locale.ROOT, """
                classes:
                  - name: premium
                    target: %1$sms
                    utility: {phi: 1, alpha: 1, beta: 1}
                    match: {header: {X-Class: premium}}
                    queue: {limit: 1000, timeout: %2$sms}
                  - name: basic
                    target: %3$sms
                    utility: {phi: 1, alpha: 1, beta: 1}
                    default: true
                    queue: {limit: 1000, timeout: %2$sms}
                servers:
                %4$sgateways:
                  - {id: g1, port: %5$d, adminPort: %6$d}
                  - {id: g2, port: %7$d, adminPort: %8$d}
                dispatch: {scheduler: wrr, balancer: least-outstanding, backendTimeout: %9$sms}
                control: {period: %10$sms, reportPeriod: %11$sms, statsWindow: %12$sms, combine: min, granularity: 1, minWeight: 1}
                kafka: {bootstrap: "%13$s", topicPrefix: "demo."}
                console: {port: %14$d, publicRead: true%15$s}
                """,
                ms(2), ms(60), ms(3), servers,
                gatewayPorts[0], gatewayPorts[1], gatewayPorts[2], gatewayPorts[3], ms(60),
                ms(5), ms(5), ms(30), bootstrap, consolePort,
                adminPasswordHash == null ? "" : ", users: [{name: admin, passwordHash: \"" + adminPasswordHash + "\", role: admin}]");
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
                """, ms(1), ms(120)));
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
