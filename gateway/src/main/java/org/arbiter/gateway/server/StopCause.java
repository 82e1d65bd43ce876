package org.arbiter.gateway.server;

/**
 * Why a gateway drains, and the status its process exits with afterwards. A drain asked for over
 * the admin port is a restart unless it says {@code final=true}: the process exits
 * {@value Gateway#EXIT_RESTART} (EX_TEMPFAIL), which the packaged unit's {@code RestartForceExitStatus=}
 * restarts; SIGTERM (the service manager stopping it) and a final drain exit 0.
 */
public enum StopCause {
    /** SIGTERM or SIGINT: the service manager or an operator stops the process. */
    SIGNAL(0),
    /** {@code POST /drain}: drain, then exit to be started again. */
    RESTART(Gateway.EXIT_RESTART),
    /** {@code POST /drain?final=true}: drain, then stay stopped. */
    FINAL(0);

    private final int exitStatus;

    StopCause(int exitStatus) {
        this.exitStatus = exitStatus;
    }

    /** The process's exit status after such a drain. */
    public int exitStatus() {
        return exitStatus;
    }
}
