package org.arbiter.sim;

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
