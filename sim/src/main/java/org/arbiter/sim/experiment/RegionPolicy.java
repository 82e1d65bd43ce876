package org.arbiter.sim.experiment;

import static java.util.Objects.requireNonNull;

import org.arbiter.common.config.DispatchConfig;
import org.arbiter.sim.Simulator;

/** The four policies of the regions experiment (003 Fig. 13-15), in the order they are run and reported. */
public enum RegionPolicy {
    FCFS("fcfs", DispatchConfig.Scheduler.FCFS, 1, Simulator.Control.CONFIGURED),
    PRIORITY("priority", DispatchConfig.Scheduler.PRIORITY, 1, Simulator.Control.CONFIGURED),
    GRM("grm", DispatchConfig.Scheduler.WRR, 1, Simulator.Control.GRM),
    GRM_FRACTIONAL("grm-fractional", DispatchConfig.Scheduler.WRR, 10, Simulator.Control.GRM);

    private final String label;
    private final DispatchConfig.Scheduler scheduler;
    private final int granularity;
    private final Simulator.Control control;

    RegionPolicy(String label, DispatchConfig.Scheduler scheduler, int granularity, Simulator.Control control) {
        this.label = requireNonNull(label, "label");
        this.scheduler = requireNonNull(scheduler, "scheduler");
        this.granularity = granularity;
        this.control = requireNonNull(control, "control");
    }

    /** The name in result.json and the progress lines. */
    public String label() {
        return label;
    }

    /** The gateways' scheduler. */
    public DispatchConfig.Scheduler scheduler() {
        return scheduler;
    }

    /** The allocation's granularity q (003 §4: 1 = whole servers, 10 = tenths). */
    public int granularity() {
        return granularity;
    }

    /** Where the allocations come from. */
    public Simulator.Control control() {
        return control;
    }

    /** True when the GRM decides (so the model's prediction error is reported). */
    public boolean withGrm() {
        return control == Simulator.Control.GRM;
    }
}
