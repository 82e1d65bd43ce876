package org.arbiter.live.abuse;

/**
 * A gateway's resources over one run, from {@link ProcSampler}'s samples: the baseline is the
 * median of the samples before the attack, the peak the highest sample during or after it,
 * "after" the last sample once the attack stopped and the settle time passed (each -1 if there
 * was no such sample). Immutable.
 *
 * @param samples how many samples were taken
 */
public record Resources(long baselineRssBytes, long peakRssBytes, long afterRssBytes, int baselineFds, int peakFds,
                        int afterFds, int samples) {
}
