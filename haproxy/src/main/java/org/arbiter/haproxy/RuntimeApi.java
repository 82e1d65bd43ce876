package org.arbiter.haproxy;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * HAProxy's Runtime API (the {@code stats socket} of {@code level admin}): one command per connection,
 * the answer read to the end. A UNIX socket path or {@code host:port}. Every call has a deadline: a
 * socket that accepts and never answers costs at most {@code timeoutMillis}, then the connection is
 * closed. The answer is capped at {@link StatCsv#MAX_CHARS} bytes.
 *
 * <p>Thread-safe (each call its own connection; one daemon thread does the I/O).
 */
public final class RuntimeApi implements AutoCloseable {

    private final SocketAddress address;
    private final String name;
    private final long timeoutMillis;
    private final ExecutorService io;

    private RuntimeApi(SocketAddress address, String name, long timeoutMillis) {
        this.address = address;
        this.name = name;
        this.timeoutMillis = timeoutMillis;
        this.io = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "haproxy-runtime-api");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * {@code PATH} (a UNIX socket; anything with a '/') or {@code HOST:PORT}.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static RuntimeApi of(String socket, long timeoutMillis) {
        requireNonNull(socket, "socket");
        if (socket.contains("/")) {
            return new RuntimeApi(UnixDomainSocketAddress.of(Path.of(socket)), socket, timeoutMillis);
        }
        int colon = socket.lastIndexOf(':');
        if (colon <= 0 || colon == socket.length() - 1) {
            throw new IllegalArgumentException("--socket: " + socket + " (expected: a UNIX socket path or HOST:PORT)");
        }
        int port;
        try {
            port = Integer.parseInt(socket.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("--socket: " + socket + " (expected: a port 1..65535 after the ':')");
        }
        String host = socket.substring(0, colon);
        return new RuntimeApi(InetSocketAddress.createUnresolved(host, port), socket, timeoutMillis);
    }

    /** Where it connects, as given. */
    public String name() {
        return name;
    }

    /** A failure to reach HAProxy or to read its answer in time. */
    public static final class Unreachable extends IOException {
        public Unreachable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Sends {@code command} and returns the whole answer. */
    public String call(String command) throws Unreachable {
        if (command.indexOf('\n') >= 0 || command.indexOf(';') >= 0) {
            throw new IllegalArgumentException("command: one command without ';' or newlines");
        }
        AtomicReference<SocketChannel> open = new AtomicReference<>();
        Future<String> f = io.submit(() -> exchange(command, open));
        try {
            return f.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            closeQuietly(open.get());
            throw new Unreachable(name + ": no answer to '" + command + "' within " + timeoutMillis + " ms", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw new Unreachable(name + ": " + (c == null ? e : c).toString(), c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeQuietly(open.get());
            throw new Unreachable(name + ": interrupted", e);
        }
    }

    private String exchange(String command, AtomicReference<SocketChannel> open) throws IOException {
        SocketChannel ch;
        if (address instanceof InetSocketAddress inet) {
            ch = SocketChannel.open();
            open.set(ch);
            ch.connect(new InetSocketAddress(inet.getHostString(), inet.getPort()));
        } else {
            ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            open.set(ch);
            ch.connect(address);
        }
        try (ch) {
            ch.write(ByteBuffer.wrap((command + "\n").getBytes(StandardCharsets.UTF_8)));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
            while (ch.read(buf) >= 0) {
                buf.flip();
                out.write(buf.array(), 0, buf.limit());
                buf.clear();
                if (out.size() > StatCsv.MAX_CHARS) {
                    throw new IOException("answer to '" + command + "' longer than " + StatCsv.MAX_CHARS + " bytes");
                }
            }
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    private static void closeQuietly(SocketChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                // closing to unblock a read
            }
        }
    }

    @Override
    public void close() {
        io.shutdownNow();
    }
}
