package org.arbiter.runtime.metrics;

import static java.util.Objects.requireNonNull;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import java.util.function.Supplier;
import org.arbiter.runtime.admin.AdminLimits;
import org.arbiter.runtime.admin.AdminServer;

/**
 * A process's admin endpoint for scrapers, for the processes that have no HTTP server of their own
 * (the GRM): {@code GET /metrics} answers the Prometheus text exposition (format 0.0.4) of a
 * {@link ProcessMetrics}, {@code GET /health} answers 200 while the process runs; any other path is
 * 404 and any other method 405. An {@link AdminServer}, with the gateway admin port's limits: a
 * connection cap, the request-head limit and the request timeout, so one client that sends half a
 * request line and waits neither blocks the others nor holds its connection past the timeout.
 *
 * <p>Thread-safe; {@link #close()} is idempotent.
 */
public final class MetricsServer implements AutoCloseable {

    /** The content type of the Prometheus text format, as Prometheus asks for it. */
    public static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final AdminServer server;

    private MetricsServer(AdminServer server) {
        this.server = server;
    }

    /** {@link #start(String, String, int, AdminLimits, Supplier)} with {@link AdminLimits#DEFAULT}. */
    public static MetricsServer start(String name, String host, int port, Supplier<String> scrape) {
        return start(name, host, port, AdminLimits.DEFAULT, scrape);
    }

    /**
     * Binds {@code host:port} (0 = any free port) and serves.
     *
     * @param name     the process, for the thread's name and the log ({@code grm-a})
     * @param limits   the connection cap, head limit and request timeout
     * @param scrape   the exposition, read at each scrape ({@link ProcessMetrics#scrape})
     * @throws IllegalStateException when the address cannot be bound (the message names it)
     */
    public static MetricsServer start(String name, String host, int port, AdminLimits limits, Supplier<String> scrape) {
        return start(name, host, port, limits, scrape, null);
    }

    /**
     * As above, with {@code GET /ready} too: 200 {@code {"status":"ready"}} while {@code notReady} answers null,
     * else 503 {@code {"status":"not ready","reason":...}} with its reason (the gateway's convention).
     */
    public static MetricsServer start(String name, String host, int port, AdminLimits limits, Supplier<String> scrape,
                                      Supplier<String> notReady) {
        requireNonNull(scrape, "scrape");
        return new MetricsServer(AdminServer.start(name, host, port, limits, () -> new Routes(scrape, notReady)));
    }

    /** {@code /metrics} and {@code /health}; one per connection, on the admin loop. */
    private static final class Routes extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final Supplier<String> scrape;
        private final Supplier<String> notReady;

        Routes(Supplier<String> scrape, Supplier<String> notReady) {
            this.scrape = scrape;
            this.notReady = notReady;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            if (AdminServer.refuseUnreadable(ctx, req)) {
                return;
            }
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            String path = req.uri().split("\\?", 2)[0];
            boolean ready = notReady != null && path.equals("/ready");
            if (!path.equals("/metrics") && !path.equals("/health") && !ready) {
                AdminServer.reply(ctx, keepAlive, HttpResponseStatus.NOT_FOUND, "application/json",
                        notReady == null ? "{\"error\":\"not found\",\"paths\":[\"/metrics\",\"/health\"]}"
                                : "{\"error\":\"not found\",\"paths\":[\"/metrics\",\"/health\",\"/ready\"]}");
                return;
            }
            if (!req.method().equals(HttpMethod.GET) && !req.method().equals(HttpMethod.HEAD)) {
                AdminServer.reply(ctx, keepAlive, HttpResponseStatus.METHOD_NOT_ALLOWED, "application/json",
                        "{\"error\":\"method not allowed\",\"allow\":[\"GET\",\"HEAD\"]}",
                        h -> h.set(HttpHeaderNames.ALLOW, "GET, HEAD"));
                return;
            }
            if (ready) {
                String why = notReady.get();
                if (why == null) {
                    AdminServer.reply(ctx, keepAlive, HttpResponseStatus.OK, "application/json", "{\"status\":\"ready\"}");
                } else {
                    AdminServer.reply(ctx, keepAlive, HttpResponseStatus.SERVICE_UNAVAILABLE, "application/json",
                            "{\"status\":\"not ready\",\"reason\":\"" + why.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}");
                }
            } else if (path.equals("/health")) {
                AdminServer.reply(ctx, keepAlive, HttpResponseStatus.OK, "application/json", "{\"status\":\"up\"}");
            } else {
                AdminServer.reply(ctx, keepAlive, HttpResponseStatus.OK, PROMETHEUS_TEXT, scrape.get());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** The bound port. */
    public int port() {
        return server.port();
    }

    /** The bound host address. */
    public String host() {
        return server.host();
    }

    /** Connections open now (at most the cap). */
    public int openConnections() {
        return server.openConnections();
    }

    @Override
    public void close() {
        server.close();
    }
}
