package org.arbiter.live.abuse;

import static java.util.Objects.requireNonNull;

/**
 * One criterion of issue 30's "Done when", judged from what a run measured. Immutable.
 *
 * @param criterion what must hold, e.g. "descriptors back to baseline"
 * @param met       whether it held in this run
 * @param measured  the figures it was judged from, e.g. "after 23, baseline 21 (+4 allowed)"
 */
public record Verdict(String criterion, boolean met, String measured) {

    /** The ordinary client got a 2xx for every request it sent during and after the attack. */
    public static final String CLIENT_ANSWERED = "ordinary client fully answered";
    /** The gateway's open descriptors after the attack are at most the baseline plus a small slack. */
    public static final String FDS_BACK = "descriptors back to baseline";
    /** The gateway's peak resident memory stays within the memory bound above its baseline. */
    public static final String MEMORY_BOUNDED = "memory bounded";
    /** The attack's own connections or requests were refused or closed, each attack saying how. */
    public static final String ATTACK_REFUSED = "attack refused";

    public Verdict {
        requireNonNull(criterion, "criterion");
        requireNonNull(measured, "measured");
    }
}
