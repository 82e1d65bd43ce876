package org.arbiter.common.message;

/** A server's power state: OFF → BOOTING → ON → DRAINING → OFF. Only ON servers get a cap. */
public enum ServerState {
    OFF, BOOTING, ON, DRAINING
}
