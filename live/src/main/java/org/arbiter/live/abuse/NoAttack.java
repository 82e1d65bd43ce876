package org.arbiter.live.abuse;

/** The run without an attack: the ordinary client alone for {@link AbuseSettings#baselineSeconds()}. */
final class NoAttack implements Attack {

    private final String gateway;

    NoAttack(String gateway) {
        this.gateway = gateway;
    }

    @Override
    public String name() {
        return "none";
    }

    @Override
    public String what() {
        return "the ordinary client alone (baseline)";
    }

    @Override
    public String gateway() {
        return gateway;
    }

    @Override
    public AttackOutcome run(Target target, AbuseSettings settings) throws InterruptedException {
        Thread.sleep((long) (settings.baselineSeconds() * 1000));
        return AttackOutcome.NONE;
    }
}
