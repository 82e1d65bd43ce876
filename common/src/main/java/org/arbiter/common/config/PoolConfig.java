package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One pool of {@code pools[]}: a set of servers and the classes they serve (a service), solved as a
 * problem of its own — its own N(g,s), weights, sizing and power, its own allocation stamp — and owned
 * by one GRM of the group at a time (docs/grm.md, "Pools and a group of GRMs"). Every gateway fronts
 * every pool. A configuration without pools is one pool of every server and class.
 *
 * @param name    the pool's id, as allocations, decisions and the console name it
 * @param servers the ids of its servers (each server in exactly one pool)
 * @param classes the names of its classes (each class in exactly one pool)
 */
public record PoolConfig(String name, List<String> servers, List<String> classes) {

    public PoolConfig {
        requireNonNull(name, "name");
        servers = List.copyOf(requireNonNull(servers, "servers"));
        classes = List.copyOf(requireNonNull(classes, "classes"));
    }
}
