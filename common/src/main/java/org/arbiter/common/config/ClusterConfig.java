package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
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
 * @param grm      what every GRM process reads ({@code grm:}: its admin endpoint)
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
        GatewayHttpConfig gatewayHttp,
        GrmConfig grm,
        List<PoolConfig> pools) {

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
        requireNonNull(grm, "grm");
        pools = List.copyOf(requireNonNull(pools, "pools"));
    }

    /** Without {@code pools:} (one pool of everything). */
    public ClusterConfig(List<ClassConfig> classes, List<ServerConfig> servers, List<GatewayConfig> gateways,
                         DispatchConfig dispatch, ControlConfig control, SizingConfig sizing, PowerConfig power,
                         KafkaConfig kafka, ConsoleConfig console, GatewayHttpConfig gatewayHttp, GrmConfig grm) {
        this(classes, servers, gateways, dispatch, control, sizing, power, kafka, console, gatewayHttp, grm, List.of());
    }

    /** Without a {@code grm:} section ({@link GrmConfig#DEFAULT}). */
    public ClusterConfig(List<ClassConfig> classes, List<ServerConfig> servers, List<GatewayConfig> gateways,
                         DispatchConfig dispatch, ControlConfig control, SizingConfig sizing, PowerConfig power,
                         KafkaConfig kafka, ConsoleConfig console, GatewayHttpConfig gatewayHttp) {
        this(classes, servers, gateways, dispatch, control, sizing, power, kafka, console, gatewayHttp, GrmConfig.DEFAULT);
    }

    /** A copy with another {@code kafka} section (e.g. a demo's generated security). */
    public ClusterConfig withKafka(KafkaConfig newKafka) {
        return new ClusterConfig(classes, servers, gateways, dispatch, control, sizing, power, newKafka, console, gatewayHttp,
                grm, pools);
    }

    /**
     * The pools as the GRM solves them: the configured ones, or without {@code pools:} one pool named ""
     * of every server and class (in configuration order).
     */
    public List<PoolConfig> effectivePools() {
        if (!pools.isEmpty()) {
            return pools;
        }
        return List.of(new PoolConfig("", servers.stream().map(ServerConfig::id).toList(),
                classes.stream().map(ClassConfig::name).toList()));
    }

    /** The pool of server {@code id} ("" without pools), if the server is known. */
    public Optional<String> poolOfServer(String id) {
        return effectivePools().stream().filter(p -> p.servers().contains(id)).map(PoolConfig::name).findFirst();
    }

    /** The pool of class {@code name} ("" without pools), if the class is known. */
    public Optional<String> poolOfClass(String name) {
        return effectivePools().stream().filter(p -> p.classes().contains(name)).map(PoolConfig::name).findFirst();
    }

    /**
     * Pool {@code p} as a cluster of its own: its classes and servers (in configuration order), every
     * gateway and every other section as they are, no pools. Its first class is the default when the
     * cluster's default class is in another pool. Without pools this configuration itself.
     */
    public ClusterConfig poolCluster(PoolConfig p) {
        if (pools.isEmpty()) {
            return this;
        }
        List<ClassConfig> cs = new ArrayList<>(classes.stream().filter(c -> p.classes().contains(c.name())).toList());
        if (!cs.isEmpty() && cs.stream().noneMatch(ClassConfig::isDefault)) {
            cs.set(0, cs.get(0).toBuilder().isDefault(true).build());
        }
        List<ServerConfig> ss = servers.stream().filter(s -> p.servers().contains(s.id())).toList();
        return new ClusterConfig(cs, ss, gateways, dispatch, control, sizing, power, kafka, console, gatewayHttp, grm);
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

    /**
     * Every problem of this configuration, checked by the rules {@link ConfigLoader} applies to a file
     * (each key's rule from its declaration, and the rules across keys and sections), one line each as
     * {@code path: value (expected: rule)}; empty when there is none. {@link Builder#build()} applies it; call it
     * for a configuration made with the record's constructor.
     */
    public List<String> problems() {
        List<String> errors = new ArrayList<>();
        ClassesSection.check(classes, errors);
        ServersSection.check(servers, errors);
        GatewaysSection.check(gateways, errors);
        DispatchSection.check(dispatch, "dispatch", errors);
        ControlSection.check(control, "control", errors);
        SizingSection.check(sizing, "sizing", errors);
        PowerSection.check(power, servers, "power", errors);
        KafkaSection.check(kafka, "kafka", errors);
        ConsoleSection.check(console, "console", errors);
        GatewayHttpSection.check(gatewayHttp, gateways, "gateway", errors);
        GrmSection.check(grm, "grm", errors);
        String paper = GrmSection.acrossProblem(grm, control);
        if (paper != null) {
            errors.add("grm.model: " + paper);
        }
        PoolsSection.check(pools, classes, servers, errors);
        return errors;
    }

    /**
     * This configuration, when it has no {@link #problems()}.
     *
     * @throws ConfigException listing every problem
     */
    public ClusterConfig validate() {
        List<String> errors = problems();
        if (!errors.isEmpty()) {
            throw new ConfigException(errors);
        }
        return this;
    }

    /** A builder starting from the defaults (see {@link Builder}). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder().classes(classes).servers(servers).gateways(gateways).dispatch(dispatch).control(control)
                .sizing(sizing).power(power).kafka(kafka).console(console).gatewayHttp(gatewayHttp).grm(grm).pools(pools);
    }

    /**
     * Builds a {@link ClusterConfig}; every setter's Javadoc gives the default, the value {@link ConfigLoader}
     * applies when the key is absent. {@link #build()} validates by the loader's rules. Not thread-safe.
     */
    public static final class Builder {
        private List<GatewayConfig> gateways = List.of(GatewayConfig.defaultGateway());
        private boolean explicitGateways;
        private DispatchConfig dispatch = DispatchConfig.DEFAULT;
        private ControlConfig control = ControlConfig.DEFAULT;
        private SizingConfig sizing = SizingConfig.DEFAULT;
        private PowerConfig power = PowerConfig.DEFAULT;
        private KafkaConfig kafka = KafkaConfig.DEFAULT;
        private ConsoleConfig console = ConsoleConfig.DEFAULT;
        private GatewayHttpConfig gatewayHttp = GatewayHttpConfig.DEFAULT;
        private GrmConfig grm = GrmConfig.DEFAULT;
        private List<PoolConfig> pools = List.of();

        private final List<ClassConfig> classes = new ArrayList<>();
        private final List<ServerConfig> servers = new ArrayList<>();

        private Builder() {
        }

        /** Adds a class ({@code classes:} is required: at least one, exactly one of them the default). */
        public Builder addClass(ClassConfig c) {
            classes.add(requireNonNull(c, "c"));
            return this;
        }

        /** Adds a server ({@code servers:} is required: at least one). */
        public Builder addServer(ServerConfig s) {
            servers.add(requireNonNull(s, "s"));
            return this;
        }

        /** Adds a gateway; the first one replaces the default gateway. */
        public Builder addGateway(GatewayConfig g) {
            if (!explicitGateways) {
                gateways = new ArrayList<>();
                explicitGateways = true;
            }
            gateways.add(requireNonNull(g, "g"));
            return this;
        }

        /** {@code gateways}; default one, {@link GatewayConfig#defaultGateway()}. */
        public Builder gateways(List<GatewayConfig> gateways) {
            this.gateways = new ArrayList<>(gateways);
            this.explicitGateways = true;
            return this;
        }

        /** {@code dispatch}; default {@link DispatchConfig#DEFAULT}. */
        public Builder dispatch(DispatchConfig dispatch) {
            this.dispatch = dispatch;
            return this;
        }

        /** {@code control}; default {@link ControlConfig#DEFAULT}. */
        public Builder control(ControlConfig control) {
            this.control = control;
            return this;
        }

        /** {@code sizing}; default {@link SizingConfig#DEFAULT} (off). */
        public Builder sizing(SizingConfig sizing) {
            this.sizing = sizing;
            return this;
        }

        /** {@code power}; default {@link PowerConfig#DEFAULT} (log). */
        public Builder power(PowerConfig power) {
            this.power = power;
            return this;
        }

        /** {@code kafka}; default {@link KafkaConfig#DEFAULT} (no bus). */
        public Builder kafka(KafkaConfig kafka) {
            this.kafka = kafka;
            return this;
        }

        /** {@code console}; default {@link ConsoleConfig#DEFAULT}. */
        public Builder console(ConsoleConfig console) {
            this.console = console;
            return this;
        }

        /** {@code gateway}; default {@link GatewayHttpConfig#DEFAULT}. */
        public Builder gatewayHttp(GatewayHttpConfig gatewayHttp) {
            this.gatewayHttp = gatewayHttp;
            return this;
        }

        /** {@code grm}; default {@link GrmConfig#DEFAULT} (admin endpoint on 127.0.0.1:9190). */
        public Builder grm(GrmConfig grm) {
            this.grm = grm;
            return this;
        }

        /** {@code pools}; default none (one pool of every server and class). */
        public Builder pools(List<PoolConfig> pools) {
            this.pools = List.copyOf(pools);
            return this;
        }

        /** Replaces the classes added so far. */
        public Builder classes(List<ClassConfig> all) {
            classes.clear();
            all.forEach(this::addClass);
            return this;
        }

        /** Replaces the servers added so far. */
        public Builder servers(List<ServerConfig> all) {
            servers.clear();
            all.forEach(this::addServer);
            return this;
        }

        /**
         * The configuration, checked as {@link ConfigLoader} checks a file: the records check their own
         * fields, and {@link ClusterConfig#validate()} the rest (every key's rule, one default class, unique
         * ids and ports, statsWindow >= reportPeriod, what a sizing policy or an actuator needs), so a
         * configuration built in code cannot skip the rules a file must follow.
         *
         * @throws ConfigException listing every problem, one line each as {@code path: value (expected: rule)}
         */
        public ClusterConfig build() {
            return new ClusterConfig(classes, servers, gateways, dispatch, control, sizing, power, kafka, console,
                    gatewayHttp, grm, pools).validate();
        }
    }
}
