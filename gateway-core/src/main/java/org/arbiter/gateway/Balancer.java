package org.arbiter.gateway;

/**
 * Chooses the server for a released request among those with a free slot under N(g,s). Decides
 * only; the core enforces the caps. Confined to the thread that drives the core. The implementations
 * live in {@code dispatch/}, with their factories in {@code dispatch.Balancers}.
 */
public interface Balancer {

    /**
     * @param excluded a server not to choose (the one that just failed), or -1
     * @return the chosen server index, or -1 when no eligible server has a free slot
     */
    int pick(ServerView servers, int excluded);

    /** Read-only view of the servers as the core sees them now. */
    interface ServerView {
        int serverCount();

        int inFlight(int s);

        /** N(g,s) in force. */
        int cap(int s);

        /** Up and {@code inFlight(s) < cap(s)}. */
        boolean available(int s);

        /**
         * The servers whose N(g,s) is above 0, in index order (only they can be available), or null
         * when the view does not keep that list (then every index is a candidate). Not to be modified.
         */
        default int[] capped() {
            return null;
        }

        /** Server s's load from a fresh poll answer (active + queued, plus what was sent since), or -1 (use inFlight). */
        default int polledLoad(int s) {
            return -1;
        }

        /** Server s missed its recent polls and is skipped ({@code dispatch.poll}, PollBook's rule). */
        default boolean skipped(int s) {
            return false;
        }

        /** The balancer sampled server s: poll it (if it has a loadUrl) so the next decisions know its load. */
        default void wantPoll(int s) {
        }
    }
}
