package org.arbiter.sim.experiment;

/** The sizing policies the energy experiment compares (000 §7.5), by their names in result.json. */
public enum EnergyPolicy {
    /** Every server on all day: the baseline the savings are measured against. */
    OFF("off"),
    /** Queue sizing with the benchmark's fixed capacity per server. */
    STATIC("static"),
    /** Queue sizing with the queueing-model capacity estimate and the forecast. */
    QUEUE("queue"),
    /** Queue sizing on the current rate instead of the forecast. */
    QUEUE_CURRENT("queue-current"),
    /** Utility sizing with a floor. */
    UTILITY("utility"),
    /** A schedule built from the day's profile, 30-minute slots. */
    SCHEDULE_30M("schedule-30m"),
    /** A schedule built from the day's profile, 2-hour slots. */
    SCHEDULE_2H("schedule-2h");

    private final String label;

    EnergyPolicy(String label) {
        this.label = label;
    }

    /** The name in result.json and progress lines. */
    public String label() {
        return label;
    }

    @Override
    public String toString() {
        return label;
    }
}
