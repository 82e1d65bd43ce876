package org.arbiter.live.abuse;

/**
 * One attack of the abuse campaign. {@link #run} opens its connections or sends its requests
 * against one gateway, waits as long as its own bound says, releases everything it holds and
 * returns its counts. Its verdict is computed from those counts, never assumed. Implementations
 * are stateless between runs; {@code run} is called from one thread.
 */
public interface Attack {

    /** Short identifier, e.g. {@code idle-h2c}: the row's name in the table. */
    String name();

    /** One line: what the attack does. */
    String what();

    /** Which gateway it targets: {@link AbuseRig#PLAIN} or {@link AbuseRig#TLS}. */
    String gateway();

    /** Runs the attack against {@code target}, sized by {@code settings}; returns its counts and verdicts. */
    AttackOutcome run(Target target, AbuseSettings settings) throws Exception;
}
