package org.arbiter.gateway;

/**
 * One request's passage through a {@link GatewayCore}: created by {@link GatewayCore#offer},
 * dispatched by {@link GatewayCore#next} (and, after {@link GatewayCore#failed} put it back in
 * its queue, dispatched again), ended exactly once by {@link GatewayCore#complete},
 * {@link GatewayCore#cancel} or {@link GatewayCore#expireQueued}. The state machine makes a
 * second end a no-op, so a slot (a permit under N(g,s)) can never leak nor be released twice.
 *
 * <p>Confined to the thread that drives the core.
 *
 * @param <R> the adapter's request type
 */
public final class Ticket<R> {

    /** Where the ticket is in its life. */
    public enum State { QUEUED, REJECTED, DISPATCHED, EXPIRED, DONE }

    private final R request;
    private final int classIndex;
    private final String className;
    private final long arrivalNanos;
    final long sequence;
    State state;
    DropReason dropReason;
    int server = -1;
    String serverId;
    long dispatchNanos;
    int attempts;
    /** Failures after the request had been sent (an idempotent request is requeued once). */
    int sentRetries;
    /** The server its last attempt failed on (-1: none); the next attempt goes elsewhere if it can. */
    int failedOn = -1;
    /** The half-open trial of its server, until a verdict. */
    boolean trial;

    Ticket(R request, int classIndex, String className, long arrivalNanos, long sequence) {
        this.request = request;
        this.classIndex = classIndex;
        this.className = className;
        this.arrivalNanos = arrivalNanos;
        this.sequence = sequence;
    }

    public R request() {
        return request;
    }

    public int classIndex() {
        return classIndex;
    }

    public String className() {
        return className;
    }

    public long arrivalNanos() {
        return arrivalNanos;
    }

    public State state() {
        return state;
    }

    public boolean accepted() {
        return state != State.REJECTED;
    }

    /** Why the gateway answers itself (REJECTED, EXPIRED, or a failed completion), else null. */
    public DropReason dropReason() {
        return dropReason;
    }

    /** The server index while DISPATCHED (and after), else -1. */
    public int server() {
        return server;
    }

    /** The server id while DISPATCHED (and after), else null. */
    public String serverId() {
        return serverId;
    }

    public long dispatchNanos() {
        return dispatchNanos;
    }

    /** How many times this request was dispatched (2 after one requeue). */
    public int attempts() {
        return attempts;
    }

    @Override
    public String toString() {
        return "Ticket[" + className + ", " + state + (serverId != null ? ", " + serverId : "") + "]";
    }
}
