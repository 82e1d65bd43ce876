package org.arbiter.runtime.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for processes that a rig starts and must be told their port before they bind it
 * (the demo, the fault campaign, the abuse rig, process tests).
 *
 * <p>Why not "bind port 0, read it, close it": that port comes from the kernel's ephemeral range,
 * the same range every outgoing connection on the machine takes its local port from. Between the
 * close and the child's bind, which can be seconds while a rig starts a broker and its GRMs, any
 * client connection (a Kafka client, a load generator, another test JVM) may take it, and the child
 * then fails with "Address already in use". Seen in CI with two test JVMs beside each other.
 *
 * <p>So a port handed out here is: outside the ephemeral range (read from
 * {@code /proc/sys/net/ipv4/ip_local_port_range}, 32768-60999 when it cannot be read), so no
 * outgoing connection can take it; free when handed out (a bind succeeds); never handed out twice
 * by this JVM; and reserved against every other JVM on the machine that uses this class, by a lock
 * on {@code <tmpdir>/arbiter-ports/<port>.lock} held until this JVM exits (the operating system
 * drops the lock when the process ends, however it ends). A port whose lock file cannot be
 * created or locked (another user's directory, say) is skipped; when no directory can be used at
 * all, the bind check alone decides.
 *
 * <p>Thread-safe.
 */
public final class Ports {

    /** The ephemeral range when {@code ip_local_port_range} cannot be read (Linux's default). */
    static final int[] DEFAULT_EPHEMERAL = {32768, 60999};

    /** The lowest port handed out: clear of the well-known and most registered service ports. */
    static final int LOWEST = 10_000;

    private static final Set<Integer> handedOut = new HashSet<>();
    /** Channels whose locks reserve the ports handed out; kept open (and reachable) until exit. */
    private static final List<FileChannel> held = new ArrayList<>();

    private Ports() {}

    /** One free loopback port, reserved for this JVM's lifetime. */
    public static int free() {
        return free(1)[0];
    }

    /** {@code n} distinct free loopback ports, each reserved for this JVM's lifetime. */
    public static synchronized int[] free(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("n must be at least 1, got " + n);
        }
        int[] range = candidateRange(ephemeralRange());
        int size = range[1] - range[0] + 1;
        Path dir = lockDir();
        int[] ports = new int[n];
        int found = 0;
        int start = ThreadLocalRandom.current().nextInt(size);
        for (int i = 0; i < size && found < n; i++) {
            int port = range[0] + (start + i) % size;
            if (take(dir, port)) {
                ports[found++] = port;
            }
        }
        if (found < n) {
            throw new IllegalStateException("no " + n + " free loopback ports in " + range[0] + "-" + range[1]
                    + " (found " + found + ")");
        }
        return ports;
    }

    /** Takes {@code port} if it is free and no JVM holds it; true if taken (for this JVM's lifetime). */
    static synchronized boolean take(int port) {
        return take(lockDir(), port);
    }

    private static boolean take(Path dir, int port) {
        if (handedOut.contains(port) || !bindable(port) || !reserve(dir, port)) {
            return false;
        }
        handedOut.add(port);
        return true;
    }

    /** The kernel's ephemeral port range, {low, high}. */
    static int[] ephemeralRange() {
        try {
            String[] parts = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+");
            int low = Integer.parseInt(parts[0]);
            int high = Integer.parseInt(parts[1]);
            if (low >= 1 && high <= 65_535 && low <= high) {
                return new int[] {low, high};
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or unreadable: the default below
        }
        return DEFAULT_EPHEMERAL.clone();
    }

    /**
     * The ports to choose from, given the ephemeral range: the larger of the gaps below and above it
     * (below starts at {@link #LOWEST}); when neither gap holds 1 000 ports, the whole of 10000-65535
     * (bind check and locks still apply).
     */
    static int[] candidateRange(int[] ephemeral) {
        int below = ephemeral[0] - 1 - LOWEST + 1;
        int above = 65_535 - (ephemeral[1] + 1) + 1;
        if (below >= above && below >= 1_000) {
            return new int[] {LOWEST, ephemeral[0] - 1};
        }
        if (above >= 1_000) {
            return new int[] {ephemeral[1] + 1, 65_535};
        }
        return new int[] {LOWEST, 65_535};
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static Path lockDir() {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "arbiter-ports");
        try {
            Files.createDirectories(dir);
            return Files.isWritable(dir) ? dir : null;
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    private static boolean reserve(Path dir, int port) {
        if (dir == null) {
            return true;
        }
        FileChannel channel = null;
        try {
            channel = FileChannel.open(dir.resolve(port + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                return false;
            }
            held.add(channel);
            return true;
        } catch (IOException | OverlappingFileLockException e) {
            closeQuietly(channel);
            return false;
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing held on a channel that failed to lock
            }
        }
    }

    /** Prints {@code n} ports (default 1), one a line, and holds them until stdin closes: for tests of the reservation. */
    public static void main(String[] args) throws IOException {
        int[] ports = free(args.length == 0 ? 1 : Integer.parseInt(args[0]));
        for (int p : ports) {
            System.out.println(p);
        }
        System.out.flush();
        while (System.in.read() >= 0) {
            // hold the locks until the parent closes our stdin
        }
    }
}
