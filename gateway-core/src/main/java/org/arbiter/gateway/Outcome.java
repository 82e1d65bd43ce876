package org.arbiter.gateway;

/** How a dispatched request ended, as reported to {@link GatewayCore#complete}. */
public enum Outcome {
    /** The server's response was delivered (whatever its status code). */
    OK,
    /** The server was too slow: the client got 504 (or a cut connection if streaming had begun). */
    BACKEND_TIMEOUT,
    /** The server refused, reset or broke the exchange. */
    BACKEND_ERROR,
    /** The client went away; not counted as a completion nor a drop. */
    CANCELLED
}
