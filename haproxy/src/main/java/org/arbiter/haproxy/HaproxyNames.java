package org.arbiter.haproxy;

/**
 * How Arbiter's names become HAProxy's in a gateway of {@code kind: haproxy}: class c is backend
 * {@code class.c}, gateway g is frontend {@code gateway.g}, server s is server {@code s} in every class
 * backend, and server s's active health check (when {@code servers[].health} is on) runs in backend
 * {@code health.s}, which the class backends' server s tracks. Ids are letters, digits, '.', '_' and '-', all
 * valid in HAProxy names. Pure.
 */
public final class HaproxyNames {

    private HaproxyNames() {
    }

    /** The backend of class {@code className}. */
    public static String backend(String className) {
        return "class." + className;
    }

    /** The frontend of gateway {@code gatewayId}. */
    public static String frontend(String gatewayId) {
        return "gateway." + gatewayId;
    }

    /** Server {@code serverId} in a class backend. */
    public static String server(String serverId) {
        return serverId;
    }

    /** The backend that holds server {@code serverId}'s health check (one probe per server, not per class). */
    public static String health(String serverId) {
        return "health." + serverId;
    }
}
