package org.arbiter.gateway;

/** Why the gateway answered a request itself instead of with a server's response. */
public enum DropReason {
    /** The class queue was at queue.limit when the request arrived: 503. */
    QUEUE_FULL("queueFull"),
    /** The request waited longer than queue.timeout: 503. */
    QUEUE_TIMEOUT("queueTimeout"),
    /**
     * A yield scheduler (edf, yid, greedy, adaptive) found that the request, at the head of its
     * queue, can earn no yield: its wait so far plus its class's expected service time reaches its
     * yield deadline (002 Fig. 5, step 1): 503.
     */
    ZERO_YIELD("zeroYield"),
    /**
     * The local admission path ({@code dispatch.admission: deadline}) expected the request to be
     * answered later than its class's target × factor: 503 at once, instead of waiting to fail.
     */
    SHED("shed"),
    /** The server did not answer within dispatch.backendTimeout: 504. */
    BACKEND_TIMEOUT("backendTimeout"),
    /** The server refused, reset or broke the exchange: 502. */
    BACKEND_ERROR("backendError");

    private final String wireName;

    DropReason(String wireName) {
        this.wireName = wireName;
    }

    /** The name used in {@code GatewayStats} drops, metric tags and 503 bodies. */
    public String wireName() {
        return wireName;
    }
}
