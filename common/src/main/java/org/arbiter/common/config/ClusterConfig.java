package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Optional;

/**
 * The whole of {@code cluster.yaml}: every component reads this one model. Load it with
 * {@link ConfigLoader}; the records are immutable and thread-safe.
 *
 * @param classes  traffic classes in file order (file order is also the static priority order)
 * @param servers  the back-end servers
 * @param gateways the gateways
 * @param gatewayHttp what every gateway's HTTP front end shares ({@code gateway:}: trusted proxies, access log)
 */
public record ClusterConfig(
        List<ClassConfig> classes,
        List<ServerConfig> servers,
        List<GatewayConfig> gateways,
        DispatchConfig dispatch,
        ControlConfig control,
        SizingConfig sizing,
        PowerConfig power,
        KafkaConfig kafka,
        ConsoleConfig console,
        GatewayHttpConfig gatewayHttp) {

    public ClusterConfig {
        classes = List.copyOf(requireNonNull(classes, "classes"));
        servers = List.copyOf(requireNonNull(servers, "servers"));
        gateways = List.copyOf(requireNonNull(gateways, "gateways"));
        requireNonNull(dispatch, "dispatch");
        requireNonNull(control, "control");
        requireNonNull(sizing, "sizing");
        requireNonNull(power, "power");
        requireNonNull(kafka, "kafka");
        requireNonNull(console, "console");
        requireNonNull(gatewayHttp, "gatewayHttp");
    }

    /** A copy with another {@code kafka} section (e.g. a demo's generated security). */
    public ClusterConfig withKafka(KafkaConfig newKafka) {
        return new ClusterConfig(classes, servers, gateways, dispatch, control, sizing, power, newKafka, console, gatewayHttp);
    }

    /** The class named {@code name}, if any. */
    public Optional<ClassConfig> classNamed(String name) {
        return classes.stream().filter(c -> c.name().equals(name)).findFirst();
    }

    /** The server with this id, if any. */
    public Optional<ServerConfig> server(String id) {
        return servers.stream().filter(s -> s.id().equals(id)).findFirst();
    }

    /** The gateway with this id, if any. */
    public Optional<GatewayConfig> gateway(String id) {
        return gateways.stream().filter(g -> g.id().equals(id)).findFirst();
    }

    /** The one class marked {@code default: true}. */
    public ClassConfig defaultClass() {
        return classes.stream().filter(ClassConfig::isDefault).findFirst().orElseThrow();
    }

    /** Σ_s N_s over servers with a configured concurrency (auto servers count their initial value). */
    public int totalConcurrency() {
        return servers.stream().mapToInt(ServerConfig::concurrency).sum();
    }
}
