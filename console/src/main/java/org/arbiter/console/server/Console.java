package org.arbiter.console.server;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.arbiter.bus.KafkaBus;
import org.arbiter.common.bus.Publisher;
import org.arbiter.bus.Subscriber;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.KafkaSecurity;
import org.arbiter.runtime.metrics.ProcessMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import org.arbiter.console.ConsoleFeed;
import org.arbiter.console.ConsoleState;
import org.arbiter.console.auth.Authenticator;
import org.arbiter.console.kafka.BusWiring;
import org.arbiter.console.netty.ConsoleServer;
import org.arbiter.console.netty.EventStream;
import org.arbiter.common.message.MessageCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running web console: the HTTP server, the live event stream and the bus subscriptions around
 * one {@link ConsoleState}. The demo runs one in-process:
 * <pre>
 * try (Console console = Console.start(config, bus, 8090)) {   // or Console.start(config, "127.0.0.1:9092", 0)
 *     System.out.println("console on " + console.url());
 * }
 * </pre>
 * Binds 127.0.0.1. Thread-safe; {@link #close()} is idempotent.
 */
public final class Console implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Console.class);
    public static final String DEFAULT_HOST = "127.0.0.1";

    private final ConsoleState state;
    private final ConsoleFeed feed;
    private final ConsoleServer server;
    private final List<Subscriber<?>> subscribers;
    private final KafkaBus ownedBus;
    private final ProcessMetrics metrics;
    private volatile boolean closed;

    private Console(ConsoleState state, ConsoleFeed feed, ConsoleServer server, List<Subscriber<?>> subscribers,
                    KafkaBus ownedBus, ProcessMetrics metrics) {
        this.state = state;
        this.feed = feed;
        this.server = server;
        this.subscribers = subscribers;
        this.ownedBus = ownedBus;
        this.metrics = metrics;
    }

    /** A console on a bus the caller owns (and closes after the console). */
    public static Console start(ClusterConfig config, KafkaBus bus, int port) {
        return start(config, bus, DEFAULT_HOST, port, Clock.systemUTC());
    }

    /** A console with its own bus connection to {@code bootstrap}, closed with the console. */
    public static Console start(ClusterConfig config, String bootstrap, int port) {
        requireNonNull(config, "config");
        requireNonNull(bootstrap, "bootstrap");
        ProcessMetrics metrics = newMetrics();
        KafkaBus bus;
        try {
            bus = KafkaBus.connect(config.kafka().withBootstrap(bootstrap), KafkaSecurity.Role.CONSOLE, "console",
                    metrics.registry());
        } catch (RuntimeException e) {
            metrics.close();
            throw e;
        }
        try {
            Console c = start(config, bus, DEFAULT_HOST, port, Clock.systemUTC(), bus, metrics);
            return c;
        } catch (RuntimeException e) {
            bus.close();
            metrics.close();
            throw e;
        }
    }

    /** The general form: host to bind, clock for sessions and overrides. */
    public static Console start(ClusterConfig config, KafkaBus bus, String host, int port, Clock clock) {
        return start(config, bus, host, port, clock, null, newMetrics());
    }

    private static Console start(ClusterConfig config, KafkaBus bus, String host, int port, Clock clock, KafkaBus owned,
                                 ProcessMetrics metrics) {
        requireNonNull(bus, "bus");
        Console c = detached(config, bus.publisher(bus.topics().overrides()), host, port, clock, owned, metrics);
        c.subscribers.addAll(BusWiring.subscribe(bus, c.feed));
        return c;
    }

    /**
     * A console without bus subscriptions: messages are fed through {@link #feed()} and overrides
     * go to {@code overrides} (tests, and embedding without Kafka).
     */
    public static Console detached(ClusterConfig config, Publisher overrides, String host, int port, Clock clock) {
        return detached(config, overrides, host, port, clock, null, newMetrics());
    }

    private static ProcessMetrics newMetrics() {
        return ProcessMetrics.createWithJvm("console", "console");
    }

    /** Owns {@code metrics} from here on: closes it if the console does not start. */
    private static Console detached(ClusterConfig config, Publisher overrides, String host, int port, Clock clock,
                                    KafkaBus owned, ProcessMetrics metrics) {
        try {
            requireNonNull(config, "config");
            requireNonNull(overrides, "overrides");
            requireNonNull(clock, "clock");
            ConsoleState state = new ConsoleState(config);
            EventStream events = new EventStream(MessageCodec.mapper(), 64);
            ConsoleFeed feed = new ConsoleFeed(state, events::publish, clock);
            Gauge.builder("arbiter.console.event.streams", events, EventStream::clients)
                    .description("live event streams (SSE) open").register(metrics.registry());
            FunctionCounter.builder("arbiter.console.event.streams.dropped", events, EventStream::dropped)
                    .description("event streams closed because their client did not keep up").register(metrics.registry());
            Gauge.builder("arbiter.console.overrides", state, st -> st.overrides().size())
                    .description("operator overrides in force").register(metrics.registry());
            ConsoleServer server = ConsoleServer.start(state, feed, events, new Authenticator(config.console()), overrides,
                    clock, host, port, metrics::scrape);
            return new Console(state, feed, server, new CopyOnWriteArrayList<>(), owned, metrics);
        } catch (InterruptedException e) {
            metrics.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding " + host + ":" + port, e);
        } catch (RuntimeException e) {
            metrics.close();
            throw e;
        }
    }

    /** The console's meters (JVM and process, its bus when it owns one, event streams, overrides), served at {@code /metrics}. */
    public ProcessMetrics metrics() {
        return metrics;
    }

    public int port() {
        return server.port();
    }

    /** {@code http://127.0.0.1:PORT/}. */
    public String url() {
        return "http://" + server.host() + ":" + port() + "/";
    }

    public ConsoleState state() {
        return state;
    }

    /** Where messages enter (the bus subscriptions call it; tests may too). */
    public ConsoleFeed feed() {
        return feed;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Subscriber<?> s : subscribers) {
            try {
                s.close();
            } catch (RuntimeException e) {
                LOG.warn("closing a subscription: {}", e.toString());
            }
        }
        server.close();
        if (ownedBus != null) {
            ownedBus.close();
        }
        metrics.close();
    }
}
