package org.arbiter.grm.control;

import java.time.Instant;
import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.Message;

/** A small cluster and records for the GRM step's stage tests. */
final class StageFixtures {

    static final Instant T = Instant.parse("2026-11-22T10:00:00Z");

    /** premium (τ 2 s, weight 3) and basic (τ 3 s); s1 N_s 10, s2 N_s 5; g1, g2, g3; Γ 5 s, W 30 s, q 1. */
    static final ClusterConfig CONFIG = ConfigLoader.parse("""
            classes:
              - {name: premium, target: 2s, weight: 3, match: {header: {X-Class: premium}}}
              - {name: basic, target: 3s, default: true}
            servers:
              - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10}
              - {id: s2, url: "http://127.0.0.1:9002", concurrency: 5}
            gateways:
              - {id: g1, port: 8080}
              - {id: g2, port: 8081}
              - {id: g3, port: 8082}
            control: {period: 5s, statsWindow: 30s}
            """);

    private StageFixtures() {
    }

    /** A class's figures: λ, X (throughput), t̃, S̃ (mean service time), the weight in force. */
    static GatewayStats.ClassStats cls(double arrivalRate, double throughput, double responseTime, double serviceTime,
                                       double weight) {
        return new GatewayStats.ClassStats(arrivalRate, throughput, responseTime, 0, serviceTime, 0, 0, 0, 0, weight,
                Map.of(), null);
    }

    static GatewayStats stats(String gateway, Map<String, GatewayStats.ClassStats> classes) {
        return new GatewayStats(1, T, gateway, 30, 1, classes, Map.of());
    }

    static Allocation allocation(String gateway, Map<String, Double> weights, Map<String, Integer> caps) {
        return new Allocation(Message.VERSION, T, gateway, 1, weights, caps, "grm", 0);
    }
}
