package org.arbiter.live.abuse;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The ordinary client's record of one phase of one run. Immutable.
 *
 * @param sent      requests sent
 * @param answered  requests answered (any status)
 * @param statuses  answers by status code
 * @param failures  requests with no answer (timeout, connection refused or reset)
 * @param p99Millis the 99th percentile of the answered requests' latency, -1 if none
 */
public record ClientTally(int sent, int answered, Map<Integer, Integer> statuses, int failures, double p99Millis) {

    /** Nothing sent. */
    public static final ClientTally EMPTY = new ClientTally(0, 0, Map.of(), 0, -1);

    public ClientTally {
        statuses = Collections.unmodifiableMap(new TreeMap<>(statuses));
    }

    /** Every request sent was answered, each with a 2xx (and at least one was sent). */
    public boolean fullyAnswered() {
        return sent > 0 && failures == 0 && statuses.keySet().stream().allMatch(s -> s / 100 == 2);
    }
}
