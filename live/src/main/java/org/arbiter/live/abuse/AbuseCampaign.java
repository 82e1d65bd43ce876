package org.arbiter.live.abuse;

import static java.util.Objects.requireNonNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;

/*
 * Design note — the abuse campaign (issue 30 item 9).
 *
 * A rig of real processes (AbuseRig: one simserver, gateway g1 with a plain request port, gateway
 * g2 with TLS, gateway g3 before an upgrade backend for WebSocket tunnels, gateway g4 following a
 * GRM over a broker) and, for each attack in turn, one run of three phases against the attack's gateway:
 * BEFORE (`beforeSeconds` of ordinary load only: the resources' baseline), DURING (the attack's own
 * run, as long as it takes: open, hold, bound, let go) and AFTER (`settleSeconds` more of ordinary
 * load). Throughout, the ordinary client (closed loop, GET /) runs against the same gateway and a
 * sampler reads the gateway's VmRSS and descriptor count every 150 ms; both tag what they record
 * with the phase. Before the attacks, one run per gateway with no attack gives the ordinary
 * client's figures without an attack, printed beside each attack's.
 *
 * Verdicts are computed, never assumed: the general ones (client fully answered during and after,
 * descriptors back to the baseline, memory bounded) by AbuseReport from the measurements, the
 * attack's own by the attack from its counts. An attack that throws gets a row with its error and
 * an unmet "attack refused"; the campaign goes on.
 *
 * Order: the drain attack runs last (on a gateway that is not fixed it ends the process; the rig
 * restarts it), the amplifying config after the reload flood (both read the configuration file,
 * which the amplifying attack replaces and restores).
 *
 * Threads: run() on the caller's; the ordinary client's, the sampler's and each attack's own.
 */

/** Runs every attack against a real gateway under ordinary load. See the design note. */
public final class AbuseCampaign {

    /** Answers per client thread before a run's baseline is sampled, at most {@link #WARM_UP_SECONDS} apart. */
    private static final int WARM_UP_ANSWERS_PER_THREAD = 5;
    private static final double WARM_UP_SECONDS = 30;


    private static final long SAMPLE_MILLIS = 150;

    private final AbuseSettings settings;
    private final Consumer<String> progress;
    private final long t0 = System.nanoTime();

    private AbuseCampaign(AbuseSettings settings, Consumer<String> progress) {
        this.settings = settings;
        this.progress = progress;
    }

    /** The attacks, in the order a campaign runs them. */
    public static List<Attack> attacks() {
        return List.of(new IdleH2Attack(IdleH2Attack.Transport.H2C), new IdleH2Attack(IdleH2Attack.Transport.ALPN),
                new SlowlorisAttack(), new H2BodiesAttack(), new IdleWebSocketAttack(), new PipelinedOversizeAttack(), new ReloadFloodAttack(), new AmplifyingConfigAttack(),
                new FutureStatsAttack(), new DrainAttack());
    }

    /**
     * Starts the rig in {@code dir} (cluster.yaml, the certificate, logs/), runs the baselines and
     * every attack, and returns what was measured; every process it started is ended before it
     * returns or throws.
     */
    public static AbuseReport run(AbuseSettings settings, Path dir, Consumer<String> progress) throws Exception {
        requireNonNull(settings, "settings");
        requireNonNull(progress, "progress");
        Files.createDirectories(dir);
        return new AbuseCampaign(settings, progress).campaign(dir);
    }

    private AbuseReport campaign(Path dir) throws Exception {
        say("starting simserver s1, gateway g1 (plain), g2 (TLS), g3 (before the upgrade backend), a broker, a GRM and"
                + " g4 (following it) in " + dir);
        try (AbuseRig rig = AbuseRig.start(settings, dir)) {
            SSLContext clientTls = rig.cert().trusting();
            List<AbuseReport.Row> rows = new ArrayList<>();
            Map<String, ClientTally> without = new HashMap<>();
            for (String gw : List.of(AbuseRig.PLAIN, AbuseRig.TLS, AbuseRig.WS, AbuseRig.BUS)) {
                say("baseline on " + gw + ": the ordinary client alone for " + settings.baselineSeconds() + " s");
                AbuseReport.Row r = once(rig, clientTls, new NoAttack(gw), ClientTally.EMPTY);
                without.put(gw, r.clientDuring());
                rows.add(withBaseline(r));
                report(r);
            }
            List<Attack> attacks = attacks();
            int n = 0;
            for (Attack a : attacks) {
                n++;
                say(String.format(Locale.ROOT, "[%d/%d] %s on %s: %s", n, attacks.size(), a.name(), a.gateway(), a.what()));
                AbuseReport.Row r = once(rig, clientTls, a, without.get(a.gateway()));
                rows.add(r);
                report(r);
            }
            return new AbuseReport(AbuseReport.Sizes.of(settings), rows);
        }
    }

    /** One run: BEFORE, the attack, AFTER; see the design note. */
    private AbuseReport.Row once(AbuseRig rig, SSLContext clientTls, Attack attack, ClientTally without)
            throws Exception {
        String gw = attack.gateway();
        if (!rig.alive(gw)) {
            say("  " + gw + " is not running: restarting it");
            rig.restart(gw);
        }
        Target target = rig.target(gw);
        OrdinaryClient client = OrdinaryClient.start(target.uri("/"), target.tls() ? clientTls : null,
                settings.clientThreads(), settings.requestTimeoutSeconds());
        // The client's own connections belong in the baseline: sample once they are open and warm
        // (a few answers per thread; the first ones from cold JVMs on a loaded machine took over a
        // second, and a 1 s baseline window then held no request at all).
        client.awaitAnswers(WARM_UP_ANSWERS_PER_THREAD * settings.clientThreads(),
                Math.max(WARM_UP_SECONDS, settings.requestTimeoutSeconds()));
        ProcSampler sampler = ProcSampler.start(() -> rig.pid(gw), SAMPLE_MILLIS);
        AttackOutcome outcome = AttackOutcome.NONE;
        String error = "";
        Map<ProcSampler.Phase, ClientTally> tallies;
        Resources resources;
        try {
            sleep(settings.beforeSeconds());
            sampler.phase(ProcSampler.Phase.DURING);
            client.phase(ProcSampler.Phase.DURING);
            try {
                outcome = attack.run(target, settings);
            } catch (Exception e) {
                error = e.toString();
                say("  " + attack.name() + " failed to run: " + error);
            }
            client.phase(ProcSampler.Phase.AFTER);
            sampler.phase(ProcSampler.Phase.AFTER);
            sleep(settings.settleSeconds());
            sampler.phase(ProcSampler.Phase.AFTER);
        } finally {
            tallies = client.stop();
            resources = sampler.stop();
        }
        return AbuseReport.row(attack, outcome, without, tallies, resources, settings, error);
    }

    /** A baseline row compares with itself. */
    private static AbuseReport.Row withBaseline(AbuseReport.Row r) {
        return new AbuseReport.Row(r.attack(), r.what(), r.gateway(), r.outcome(), r.clientDuring(), r.clientDuring(),
                r.clientAfter(), r.resources(), r.verdicts(), r.error());
    }

    private void report(AbuseReport.Row r) {
        Resources x = r.resources();
        say(String.format(Locale.ROOT, "  %s: attempted %d, refused/closed %d, accepted/open %d; client %s;"
                        + " RSS %d/%d/%d MiB, fds %d/%d/%d", r.attack(), r.outcome().attempted(), r.outcome().refused(),
                r.outcome().accepted(), AbuseReport.describe(r.clientDuring()), x.baselineRssBytes() >> 20,
                x.peakRssBytes() >> 20, x.afterRssBytes() >> 20, x.baselineFds(), x.peakFds(), x.afterFds()));
        for (Verdict v : r.verdicts()) {
            say("    " + (v.met() ? "yes" : "NO ") + " " + v.criterion() + ": " + v.measured());
        }
    }

    private void say(String line) {
        progress.accept(String.format(Locale.ROOT, "abuse %6.1fs %s", (System.nanoTime() - t0) / 1e9, line));
    }

    private static void sleep(double seconds) throws InterruptedException {
        Thread.sleep((long) (seconds * 1000));
    }
}
