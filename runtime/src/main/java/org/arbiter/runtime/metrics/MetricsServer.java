package org.arbiter.runtime.metrics;

import static java.util.Objects.requireNonNull;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A process's admin endpoint for scrapers, for the processes that have no HTTP server of their own
 * (the GRM): {@code GET /metrics} answers the Prometheus text exposition (format 0.0.4) of a
 * {@link ProcessMetrics}, {@code GET /health} answers 200 while the process runs; any other path is
 * 404 and any other method 405. The JDK's HTTP server on one daemon thread: a scrape is a few
 * hundred lines every 15 s or so, nothing here is on a hot path.
 *
 * <p>Thread-safe; {@link #close()} is idempotent.
 */
public final class MetricsServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);
    /** The content type of the Prometheus text format, as Prometheus asks for it. */
    public static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsServer(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Binds {@code host:port} (0 = any free port) and serves.
     *
     * @param name     the process, for the thread's name and the log ({@code grm-a})
     * @param scrape   the exposition, read at each scrape ({@link ProcessMetrics#scrape})
     * @throws IllegalStateException when the address cannot be bound (the message names it)
     */
    public static MetricsServer start(String name, String host, int port, Supplier<String> scrape) {
        requireNonNull(name, "name");
        requireNonNull(host, "host");
        requireNonNull(scrape, "scrape");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 0..65535)");
        }
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 64);
        } catch (IOException e) {
            throw new IllegalStateException("cannot bind the admin port " + host + ":" + port + " (" + e.getMessage() + ")", e);
        }
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name + "-admin");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", exchange -> {
            try (exchange) {
                handle(exchange, scrape);
            } catch (IOException | RuntimeException e) {
                LOG.debug("admin request {} failed: {}", exchange.getRequestURI(), e.toString());
            }
        });
        server.start();
        return new MetricsServer(server, executor);
    }

    private static void handle(HttpExchange exchange, Supplier<String> scrape) throws IOException {
        String method = exchange.getRequestMethod();
        boolean head = method.equals("HEAD");
        String path = exchange.getRequestURI().getPath();
        if (!path.equals("/metrics") && !path.equals("/health")) {
            send(exchange, 404, "application/json", "{\"error\":\"not found\",\"paths\":[\"/metrics\",\"/health\"]}", head);
            return;
        }
        if (!head && !method.equals("GET")) {
            exchange.getResponseHeaders().set("Allow", "GET, HEAD");
            send(exchange, 405, "application/json", "{\"error\":\"method not allowed\",\"allow\":[\"GET\",\"HEAD\"]}", false);
            return;
        }
        if (path.equals("/health")) {
            send(exchange, 200, "application/json", "{\"status\":\"up\"}", head);
        } else {
            send(exchange, 200, PROMETHEUS_TEXT, scrape.get(), head);
        }
    }

    private static void send(HttpExchange exchange, int status, String type, String body, boolean head) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** The bound port. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The bound host address. */
    public String host() {
        return server.getAddress().getAddress().getHostAddress();
    }

    @Override
    public synchronized void close() {
        if (executor.isShutdown()) {
            return;
        }
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
