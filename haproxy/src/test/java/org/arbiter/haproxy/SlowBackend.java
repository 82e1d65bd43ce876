package org.arbiter.haproxy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;

/** The tests' backend: a JDK HTTP server on 127.0.0.1 that answers every request 200 {@code body} after {@code delayMillis}. */
final class SlowBackend {

    private SlowBackend() {
    }

    static HttpServer start(int port, long delayMillis, String body, Executor threads) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 256);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        s.createContext("/", ex -> {
            try {
                if (delayMillis > 0) {
                    Thread.sleep(delayMillis);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ex.sendResponseHeaders(200, bytes.length);
            ex.getResponseBody().write(bytes);
            ex.close();
        });
        s.setExecutor(threads);
        s.start();
        return s;
    }
}
