package org.arbiter.gateway;

/**
 * What a drain did (see {@link Drain}).
 *
 * @param held     requests queued or at a server when the drain began
 * @param arrived  requests that arrived on open connections during the drain
 * @param served   responses from servers completed during the drain
 * @param refused  requests answered 503 at or after the deadline before reaching a server
 * @param cut      responses being streamed at the deadline (their connection was cut)
 * @param nanos    from the start of the drain to the last request answered
 */
public record DrainReport(int held, long arrived, long served, int refused, int cut, long nanos) {

    /** Nothing was refused or cut: every request the gateway read was answered by a server. */
    public boolean clean() {
        return refused == 0 && cut == 0;
    }
}
