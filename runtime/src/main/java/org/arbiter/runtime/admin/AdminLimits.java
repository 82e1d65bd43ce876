package org.arbiter.runtime.admin;

/**
 * What an admin port allows one client: open connections, request-head size, and how long a
 * connection may take to deliver a complete request. Immutable and thread-safe.
 *
 * @param maxConnections      open connections beyond this get 503 and are closed before any byte is read, ≥ 1
 * @param maxHeaderBytes      larger request heads get 431, ≥ 256
 * @param requestTimeoutNanos a connection without a complete request this long after it opened, or
 *                            after its last answer, is closed (idle, or trickling a request), > 0
 */
public record AdminLimits(int maxConnections, long maxHeaderBytes, long requestTimeoutNanos) {

    /** The gateway's defaults ({@code gateways[].adminMaxConnections}, {@code dispatch.maxHeaderBytes}, {@code dispatch.idleTimeout}). */
    public static final AdminLimits DEFAULT = new AdminLimits(256, 16 << 10, 60_000_000_000L);

    public AdminLimits {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections: " + maxConnections + " (expected: >= 1)");
        }
        if (maxHeaderBytes < 256) {
            throw new IllegalArgumentException("maxHeaderBytes: " + maxHeaderBytes + " (expected: >= 256)");
        }
        if (requestTimeoutNanos <= 0) {
            throw new IllegalArgumentException("requestTimeoutNanos: " + requestTimeoutNanos + " (expected: > 0)");
        }
    }

    /** These limits with {@code seconds} as the request timeout. */
    public static AdminLimits of(int maxConnections, long maxHeaderBytes, double requestTimeoutSeconds) {
        return new AdminLimits(maxConnections, maxHeaderBytes, (long) (requestTimeoutSeconds * 1e9));
    }
}
