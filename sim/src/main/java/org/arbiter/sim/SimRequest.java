package org.arbiter.sim;

import org.arbiter.gateway.Ticket;

/** One simulated request: whose it is, where it went in, when and in which phase it was sent, and its gateway ticket. */
final class SimRequest {
    final SimClient client;
    final String cls;
    final int gateway;
    final double sent;
    final int phase;
    Ticket<SimRequest> ticket;

    SimRequest(SimClient client, String cls, int gateway, double sent, int phase) {
        this.client = client;
        this.cls = cls;
        this.gateway = gateway;
        this.sent = sent;
        this.phase = phase;
    }
}
