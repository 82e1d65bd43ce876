package org.arbiter.sim.experiment;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.arbiter.sim.SimScenario;

/**
 * 003 §V-B's four phases of closed-loop load on the paper cluster (Fig. 8-12): premium and basic
 * clients per phase. The simulated and live phases experiments and the two-gateway spread run them
 * in this order; each row of their results carries its phase's clients from here.
 */
public enum PaperPhase {
    A(5, 5), B(20, 20), C(5, 20), D(20, 5);

    private final int premiumClients;
    private final int basicClients;

    PaperPhase(int premiumClients, int basicClients) {
        this.premiumClients = premiumClients;
        this.basicClients = basicClients;
    }

    /** Closed-loop premium clients in this phase. */
    public int premiumClients() {
        return premiumClients;
    }

    /** Closed-loop basic clients in this phase. */
    public int basicClients() {
        return basicClients;
    }

    /** This phase as a simulator scenario phase of {@code seconds}. */
    public SimScenario.Phase simPhase(double seconds) {
        return new SimScenario.Phase(name(), seconds, Map.of("premium", premiumClients, "basic", basicClients), null);
    }

    /** The four phases, in order, as simulator scenario phases of {@code secondsPerPhase} each. */
    public static List<SimScenario.Phase> simPhases(double secondsPerPhase) {
        return Arrays.stream(values()).map(p -> p.simPhase(secondsPerPhase)).toList();
    }
}
