package org.arbiter.live.abuse;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The backend behind the WebSocket gateway: a small HTTP/1.1 server in the campaign's JVM that
 * answers {@code 101 Switching Protocols} to any request with {@code Upgrade: websocket} and then
 * holds the connection (reading and discarding) until the gateway closes it, and {@code 200 ok}
 * (keep-alive) to anything else. One thread per connection (small stacks). Thread-safe.
 */
final class UpgradeBackend implements AutoCloseable {

    private static final long STACK_BYTES = 128 * 1024;

    private final ServerSocket server;
    private final AtomicInteger tunnels = new AtomicInteger();
    private final Thread acceptor;

    UpgradeBackend() throws IOException {
        server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
        acceptor = new Thread(this::accept, "abuse-upgrade-backend");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Tunnels open now (answered 101 and not yet closed). */
    int tunnels() {
        return tunnels.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Thread t = new Thread(null, () -> serve(s), "abuse-upgrade-conn", STACK_BYTES);
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket s) {
        try (s) {
            InputStream in = new BufferedInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            while (true) {
                String head = head(in);
                if (head == null) {
                    return;
                }
                String lower = head.toLowerCase(Locale.ROOT);
                if (lower.contains("\nupgrade: websocket")) {
                    out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    tunnels.incrementAndGet();
                    try {
                        byte[] buf = new byte[4096];
                        while (in.read(buf) >= 0) {
                            // a tunnel: whatever comes is discarded
                        }
                    } finally {
                        tunnels.decrementAndGet();
                    }
                    return;
                }
                int i = lower.indexOf("\ncontent-length:");
                if (i >= 0) {
                    int end = lower.indexOf('\r', i);
                    long n = Long.parseLong(lower.substring(i + 16, end < 0 ? lower.length() : end).trim());
                    in.skipNBytes(n);
                }
                out.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        } catch (IOException | RuntimeException e) {
            // the gateway closed the connection
        }
    }

    /** A request head up to its blank line, or null at the end of the stream. */
    private static String head(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            b.append((char) c);
            int n = b.length();
            if (n >= 4 && b.charAt(n - 1) == '\n' && b.charAt(n - 2) == '\r' && b.charAt(n - 3) == '\n') {
                return b.toString();
            }
            if (n > 65_536) {
                throw new IOException("request head over 64 KiB");
            }
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
