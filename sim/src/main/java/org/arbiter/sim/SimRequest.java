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

/** A simulated client of one class behind one gateway; a retired one sends no more (a one-shot client is retired from the start). */
final class SimClient {
    final String cls;
    final int gateway;
    boolean retired;

    SimClient(String cls, int gateway) {
        this.cls = cls;
        this.gateway = gateway;
    }
}
