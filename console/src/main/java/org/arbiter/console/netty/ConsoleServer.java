package org.arbiter.console.netty;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.arbiter.common.bus.Publisher;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigWriter;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.message.MessageCodec;
import org.arbiter.console.ConsoleFeed;
import org.arbiter.console.ConsoleState;
import org.arbiter.console.auth.Authenticator;
import org.arbiter.runtime.admin.ConnectionCap;
import org.arbiter.runtime.admin.RequestDeadline;

/**
 * The console's HTTP server: Netty on NIO, one {@link ConsoleHttpHandler} per connection behind
 * {@code HttpServerCodec}, keep-alive handling and a 64 KiB {@code HttpObjectAggregator} (larger
 * bodies get 413), connections idle for 60 s closed (event streams get a heartbeat every 15 s
 * instead). With the admin ports' limits: at most {@link #MAX_CONNECTIONS} open connections (503
 * beyond), and a connection that has not delivered a complete request within
 * {@code dispatch.idleTimeout} of opening or of its last answer is closed, however slowly it trickles.
 * PBKDF2 checks and publishing run on two worker threads of their own.
 *
 * <p>Thread-safe: start and close from any thread.
 */
public final class ConsoleServer implements AutoCloseable {

    static final int MAX_BODY_BYTES = 64 * 1024;
    static final int MAX_STREAMS = 64;
    /** Open connections beyond this get 503 and are closed before any byte is read (the admin ports' default). */
    static final int MAX_CONNECTIONS = GatewayConfig.DEFAULT_ADMIN_MAX_CONNECTIONS;

    private final EventLoopGroup group;
    private final ExecutorService blocking;
    private final Channel serverChannel;
    private final EventStream events;
    private final ScheduledFuture<?> heartbeat;

    private ConsoleServer(EventLoopGroup group, ExecutorService blocking, Channel serverChannel, EventStream events,
                          ScheduledFuture<?> heartbeat) {
        this.group = group;
        this.blocking = blocking;
        this.serverChannel = serverChannel;
        this.events = events;
        this.heartbeat = heartbeat;
    }

    /**
     * Binds {@code host:port} (0 = any free port) and serves.
     *
     * @param feed      where the handler applies overrides it published (so the list is current at once)
     * @param events    the live stream the feed emits to
     * @param overrides publisher of the overrides topic
     */
    public static ConsoleServer start(ConsoleState state, ConsoleFeed feed, EventStream events, Authenticator auth,
                                      Publisher overrides, Clock clock, String host, int port) throws InterruptedException {
        return start(state, feed, events, auth, overrides, clock, host, port, () -> "");
    }

    /** As above, serving {@code metrics} (the Prometheus text exposition) at {@code GET /metrics}. */
    public static ConsoleServer start(ConsoleState state, ConsoleFeed feed, EventStream events, Authenticator auth,
                                      Publisher overrides, Clock clock, String host, int port,
                                      Supplier<String> metrics) throws InterruptedException {
        requireNonNull(state, "state");
        requireNonNull(metrics, "metrics");
        ObjectMapper mapper = MessageCodec.mapper();
        ExecutorService blocking = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "console-worker");
            t.setDaemon(true);
            return t;
        });
        ConsoleHttpHandler.Shared shared = new ConsoleHttpHandler.Shared(state, feed, auth, overrides, clock, blocking,
                events, new StaticFiles(), mapper, configView(state.config()), new AtomicInteger(), metrics);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        // the admin ports' limits (runtime's AdminServer): a connection cap, and a request timeout that a
        // trickled request does not reset (the idle handler below is reset by every byte)
        ConnectionCap cap = new ConnectionCap(MAX_CONNECTIONS, "console");
        long requestTimeoutNanos = (long) (state.config().dispatch().idleTimeoutSeconds() * 1e9);
        try {
            Channel ch = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 128)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel c) {
                            c.pipeline()
                                    .addLast(cap)
                                    .addLast(new IdleStateHandler(60, 0, 0, TimeUnit.SECONDS))
                                    .addLast(new HttpServerCodec(4096, 16 * 1024, 8192))
                                    .addLast(new HttpServerKeepAliveHandler())
                                    .addLast(new HttpObjectAggregator(MAX_BODY_BYTES))
                                    .addLast(new RequestDeadline(requestTimeoutNanos))
                                    .addLast(new ConsoleHttpHandler(shared));
                        }
                    })
                    .bind(new InetSocketAddress(host, port)).sync().channel();
            ScheduledFuture<?> hb = group.next().scheduleAtFixedRate(events::heartbeat, 15, 15, TimeUnit.SECONDS);
            return new ConsoleServer(group, blocking, ch, events, hb);
        } catch (InterruptedException | RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            blocking.shutdownNow();
            throw e;
        }
    }

    public int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    public String host() {
        return ((InetSocketAddress) serverChannel.localAddress()).getAddress().getHostAddress();
    }

    @Override
    public void close() {
        heartbeat.cancel(false);
        serverChannel.close().awaitUninterruptibly(2_000);
        events.close();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5_000);
        blocking.shutdownNow();
    }

    /**
     * The configuration as the page shows it: the writer's typed tree ({@link ConfigWriter#view}, password
     * hashes and token digests left out) and the same tree as YAML. No YAML text is parsed back.
     */
    static Map<String, Object> configView(ClusterConfig config) {
        try {
            Map<String, Object> tree = ConfigWriter.view(config);
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("yaml", ConfigWriter.toYaml(tree));
            out.put("config", tree);
            return out;
        } catch (RuntimeException e) {
            return Map.of("yaml", "# configuration not available: " + e.getMessage(), "config", Map.of(), "errors", List.of());
        }
    }
}
