package org.arbiter.sim.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigException;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.config.SizingConfig;
import org.arbiter.loadgen.client.ResultRecorder;
import org.arbiter.loadgen.client.Scenario;
import org.arbiter.sim.SimResult;
import org.arbiter.sim.Simulator;
import org.junit.jupiter.api.Test;

/** A {@link RunSpec} on the {@link SimulatedBackend}: its outcome against the simulator's own result. */
final class SimulatedBackendTest {

    /** Three servers of 2 cores, demand Exp(0.1 s): 60 req/s in all; sizing by queue, boots of 20 s. */
    private static ClusterConfig cluster(SizingConfig.Policy policy) {
        ClusterConfig.Builder b = ClusterConfig.builder()
                .addClass(ClassConfig.builder("web", 1).isDefault(true).queue(200, 5).build())
                .addClass(ClassConfig.builder("batch", 4).build());
        for (int i = 1; i <= 3; i++) {
            b.addServer(ServerConfig.builder("s" + i, URI.create("http://127.0.0.1:900" + i)).concurrency(2)
                    .sim(ServerConfig.SimSpec.builder().cores(2).meanDemandSeconds(0.1).build()).build());
        }
        return b.addGateway(GatewayConfig.builder("g1").build())
                .sizing(SizingConfig.builder().policy(policy).estimator(SizingConfig.Estimator.QUEUE)
                        .startupDelaySeconds(20).shutdownDelaySeconds(20).build())
                .build();
    }

    /** A day from 4 to 40 req/s of web and back, 5 closed-loop batch clients. */
    private static Scenario day(long seed) {
        return new Scenario(Map.of("web", Scenario.RequestShape.get(Map.of(), 0)), 1, 60, seed,
                List.of(new Scenario.Phase("day", 1200, Map.of("batch", 5), Map.of(), Map.of(),
                        Map.of("web", new Scenario.Diurnal(40, 4)))), List.of());
    }

    @Test
    void outcome_agreesWithTheSimulatorsResult_classByClass() throws Exception {
        RunSpec spec = RunSpec.withGrm(cluster(new SizingConfig.ByCapacity()), day(3));
        SimResult r = Simulator.withGrm(spec.cluster(), spec.simScenario()).run();

        RunOutcome o = new SimulatedBackend().run(spec);

        assertThat(o.classes()).containsOnlyKeys("web", "batch");
        for (String c : List.of("web", "batch")) {
            SimResult.ClassResult x = r.phases().get(0).classes().get(c);
            RunOutcome.ClassOutcome k = o.cls(c);
            assertThat(List.of(k.sent(), k.ok(), k.rejected(), k.lost())).as(c)
                    .isEqualTo(List.of(x.sent(), x.ok(), x.rejected(), x.lost()));
            assertThat(k.meanResponseSeconds()).as(c).isEqualTo(x.meanResponseSeconds());
            assertThat(k.timedOut() + k.errors()).as(c + ": no client timeouts or errors in the simulator").isZero();
        }
        assertThat(o.sent()).isEqualTo(r.sent());
        assertThat(o.dropped()).isEqualTo(r.dropped());
        assertThat(o.energyJoules()).isEqualTo(r.totalEnergyJoules());
        assertThat(o.seconds()).isEqualTo(1200);
        assertThat(o.allocations()).isEqualTo(r.allocations().size()).isPositive();
        assertThat(o.weights().get("web").max()).isGreaterThanOrEqualTo(o.weights().get("web").mean()).isPositive();
        assertThat(o.powerOns()).as("the trough at both ends: servers go off, and come back for the peak").isPositive();
        assertThat(o.powerOffs()).isGreaterThanOrEqualTo(o.powerOns());
        assertThat(o.meanServersUp()).isGreaterThan(0).isLessThan(3);
    }

    @Test
    void alwaysOn_neverPowersAServerOff() throws Exception {
        RunOutcome o = new SimulatedBackend().run(RunSpec.withGrm(cluster(new SizingConfig.Off()), day(3)));

        assertThat(o.powerOffs()).isZero();
        assertThat(o.powerOns()).isZero();
        assertThat(o.meanServersUp()).isEqualTo(3.0);
    }

    @Test
    void answers_ofTheClassesAskedFor_areEveryRequestOfThatClass() throws Exception {
        RunOutcome o = new SimulatedBackend().run(RunSpec.withGrm(cluster(new SizingConfig.Off()), day(5)),
                Set.of("web"));

        assertThat(o.answers()).containsOnlyKeys("web");
        List<ResultRecorder.Request> web = o.answersOf("web");
        assertThat((long) web.size()).isEqualTo(o.cls("web").sent() - unanswered(o));
        assertThat(web.stream().filter(a -> a.outcome() == ResultRecorder.Outcome.OK)
                .mapToDouble(ResultRecorder.Request::responseSeconds).average().orElseThrow())
                .isCloseTo(o.cls("web").meanResponseSeconds(), within(1e-9));
        assertThat(web).allMatch(a -> a.intendedStartSeconds() >= 0 && a.intendedStartSeconds() <= 1200
                && a.responseSeconds() >= 0);
        assertThat(o.answersOf("batch")).isEmpty();
    }

    /** Requests sent but neither answered nor dropped by the end of the run (in service or queued then). */
    private static long unanswered(RunOutcome o) {
        RunOutcome.ClassOutcome k = o.cls("web");
        return k.sent() - k.ok() - k.dropped();
    }

    @Test
    void sameSpec_sameOutcome() throws Exception {
        RunSpec spec = RunSpec.withGrm(cluster(new SizingConfig.ByCapacity()), day(7));
        assertThat(new SimulatedBackend().run(spec)).isEqualTo(new SimulatedBackend().run(spec));
    }

    @Test
    void aSpecWhoseLoadNamesAnUnknownClass_isRefusedAtOnce() {
        Scenario load = new Scenario(Map.of(), 1, 60, 1, List.of(new Scenario.Phase("p", 10, Map.of("gold", 1),
                Map.of(), Map.of(), Map.of())), List.of());
        assertThatThrownBy(() -> RunSpec.withGrm(cluster(new SizingConfig.Off()), load))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("phases.p.clients.gold: (expected: a class of the run's cluster)");
    }
}
