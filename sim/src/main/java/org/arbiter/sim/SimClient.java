package org.arbiter.sim;

/** A simulated client of one class behind one gateway; a retired one sends no more (a one-shot client is retired from the start). */
final class SimClient {
    final String cls;
    /** The class's place in the cluster file's classes. */
    final int classIndex;
    final int gateway;
    boolean retired;

    SimClient(String cls, int classIndex, int gateway) {
        this.cls = cls;
        this.classIndex = classIndex;
        this.gateway = gateway;
    }
}
