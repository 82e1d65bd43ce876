package org.arbiter.common.override;

import static java.util.Objects.requireNonNull;

import java.util.Collection;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.message.OperatorOverride;

/*
 * Design note.
 *
 * Rule. A class's response-time target τ_c and utility parameters φ, α, β (003 eq. 7) are what the
 * configuration says, unless a target or utility override in force names the class. When several
 * do, the newest wins: the later `at`, and on equal `at` the larger id (newer). A utility override
 * replaces only the parameters it carries; the others stay as configured. Nothing else of the class
 * changes. The outcome depends on the set of overrides only, never on the order they are given in.
 *
 * One definition for the GRM (OverrideBook, what the optimiser uses) and the console (what the
 * class view and the measured utilities show), so both always agree on the class in force.
 *
 * Stateless; thread-safe.
 */

/** The class in force: the configured class with the newest target and utility overrides applied (see the design note). */
public final class EffectiveClass {

    private EffectiveClass() {
    }

    /**
     * {@code c} with the target and utility overrides among {@code inForce} that name it applied;
     * {@code c} itself when that changes nothing.
     *
     * @param inForce the active overrides, of any kind (only target and utility ones for {@code c} count)
     */
    public static ClassConfig of(ClassConfig c, Collection<OperatorOverride> inForce) {
        requireNonNull(c, "c");
        requireNonNull(inForce, "inForce");
        double target = c.targetSeconds();
        ClassConfig.UtilitySpec u = c.utility();
        OperatorOverride newestTarget = null;
        OperatorOverride newestUtility = null;
        for (OperatorOverride o : inForce) {
            if (!c.name().equals(o.cls())) {
                continue;
            }
            if (o.kind() == OperatorOverride.Kind.TARGET) {
                newestTarget = newestTarget == null ? o : newer(newestTarget, o);
            } else if (o.kind() == OperatorOverride.Kind.UTILITY) {
                newestUtility = newestUtility == null ? o : newer(newestUtility, o);
            }
        }
        if (newestTarget != null) {
            target = newestTarget.value();
        }
        if (newestUtility != null) {
            u = new ClassConfig.UtilitySpec(
                    newestUtility.phi() != null ? newestUtility.phi() : u.phi(),
                    newestUtility.alpha() != null ? newestUtility.alpha() : u.alpha(),
                    newestUtility.beta() != null ? newestUtility.beta() : u.beta(), u.scale());
        }
        if (target == c.targetSeconds() && u.equals(c.utility())) {
            return c;
        }
        return new ClassConfig(c.name(), target, u, c.yield(), c.weight(), c.minShare(), c.match(), c.queue(), c.isDefault(),
                c.thinkTimeSeconds());
    }

    /** The newer of two overrides: the later {@code at}, on equal {@code at} the larger id ({@code a} on equal ids). */
    public static OperatorOverride newer(OperatorOverride a, OperatorOverride b) {
        int byTime = a.at().compareTo(b.at());
        if (byTime != 0) {
            return byTime > 0 ? a : b;
        }
        return a.id().compareTo(b.id()) >= 0 ? a : b;
    }
}
