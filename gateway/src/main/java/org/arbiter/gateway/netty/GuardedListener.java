package org.arbiter.gateway.netty;

import org.arbiter.gateway.DropReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link PlaneListener} that logs what the listener it wraps throws, so that a meter can never
 * break an event loop or leave a request unanswered. Thread-safe if the wrapped listener is.
 */
final class GuardedListener implements PlaneListener {

    private static final Logger LOG = LoggerFactory.getLogger(DataPlane.class);

    private final PlaneListener listener;

    GuardedListener(PlaneListener listener) {
        this.listener = listener == null ? PlaneListener.NOOP : listener;
    }

    private static void failed(RuntimeException e) {
        LOG.warn("listener failed: {}", e.toString());
    }

    @Override
    public void arrival(String className) {
        try {
            listener.arrival(className);
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    @Override
    public void dropped(String className, DropReason reason) {
        try {
            listener.dropped(className, reason);
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    @Override
    public void responded(String className, long nanos) {
        try {
            listener.responded(className, nanos);
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    @Override
    public void sent(String className, int status) {
        try {
            listener.sent(className, status);
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    @Override
    public void cancelled(String className, boolean dispatched) {
        try {
            listener.cancelled(className, dispatched);
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    @Override
    public void proxyRefused(ProxyRefusal reason) {
        try {
            listener.proxyRefused(reason);
        } catch (RuntimeException e) {
            failed(e);
        }
    }
}
