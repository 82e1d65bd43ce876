package org.arbiter.gateway.netty;

import org.arbiter.gateway.DropReason;

/**
 * Events of the data plane for meters. Called on the data-plane event loop; implementations must
 * be cheap and must not throw (a throwing listener is caught and logged by the plane).
 */
public interface PlaneListener {

    void arrival(String className);

    void dropped(String className, DropReason reason);

    /** A response went to the client; {@code nanos} from arrival to last byte written. */
    void responded(String className, long nanos);

    /**
     * The whole response went to the client: {@code status} is the server's when it was forwarded,
     * the gateway's own (503, 502, 504) when the gateway answered. Called once per request that
     * ended with a response, after {@link #responded} or {@link #dropped}.
     */
    default void sent(String className, int status) {
    }

    /**
     * The client went away before its response: {@code dispatched} false when the request was
     * still queued (it left the queue and no server saw it), true when a server had it.
     */
    default void cancelled(String className, boolean dispatched) {
    }

    /** A connection was closed at the PROXY protocol gate. */
    default void proxyRefused(ProxyRefusal reason) {
    }

    PlaneListener NOOP = new PlaneListener() {
        @Override
        public void arrival(String className) {
        }

        @Override
        public void dropped(String className, DropReason reason) {
        }

        @Override
        public void responded(String className, long nanos) {
        }
    };
}
