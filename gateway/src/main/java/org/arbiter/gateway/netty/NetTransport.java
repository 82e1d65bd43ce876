package org.arbiter.gateway.netty;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import java.util.function.Supplier;
import org.arbiter.common.config.GatewayHttpConfig;

/**
 * The socket transport of a data plane ({@code gateway.transport}): the event loops' I/O handler
 * and the channel classes that go with it. Every channel registered on a data-plane loop (client,
 * backend, health probe, load poll) must be of this transport's classes.
 *
 * @param name           io_uring, epoll or nio (logged at start)
 * @param ioHandler      the event loops' I/O handler factory
 * @param serverChannel  the listening socket's class
 * @param socketChannel  the class of connections the gateway opens
 */
public record NetTransport(String name, Supplier<IoHandlerFactory> ioHandler,
                           Class<? extends ServerSocketChannel> serverChannel,
                           Class<? extends SocketChannel> socketChannel) {

    public static final NetTransport NIO = new NetTransport("nio", NioIoHandler::newFactory,
            NioServerSocketChannel.class, NioSocketChannel.class);

    /**
     * The transport {@code wanted} names; for {@code auto} io_uring where the kernel offers it (5.9 and
     * later, not disabled by {@code kernel.io_uring_disabled} or a seccomp profile), else epoll if its
     * native library loads, else NIO (docs/gateway.md, "Event loops and transport").
     *
     * @throws IllegalStateException when a native transport was asked for by name and cannot load,
     *                               with the reason Netty gives
     */
    public static NetTransport resolve(GatewayHttpConfig.Transport wanted) {
        return switch (wanted) {
            case NIO -> NIO;
            case EPOLL -> {
                if (!epollLoads()) {
                    throw new IllegalStateException("gateway.transport: epoll is not available here ("
                            + Epoll.unavailabilityCause() + "; expected: auto or nio on this machine)");
                }
                yield epoll();
            }
            case IO_URING -> {
                if (!ioUringLoads()) {
                    throw new IllegalStateException("gateway.transport: io_uring is not available here ("
                            + IoUring.unavailabilityCause() + "; expected: auto, epoll or nio on this machine)");
                }
                yield ioUring();
            }
            case AUTO -> ioUringLoads() ? ioUring() : epollLoads() ? epoll() : NIO;
        };
    }

    /**
     * Why {@code auto} did not take io_uring (and, if it fell to NIO, epoll), for the start-up line; empty if it
     * took io_uring.
     */
    public static String whyNotNative() {
        if (ioUringLoads()) {
            return "";
        }
        String uring = "io_uring: " + cause(IoUring::unavailabilityCause);
        return epollLoads() ? uring : uring + "; epoll: " + cause(Epoll::unavailabilityCause);
    }

    private static String cause(Supplier<Throwable> why) {
        try {
            Throwable t = why.get();
            return t == null ? "not available" : String.valueOf(t.getMessage() != null ? t.getMessage() : t);
        } catch (Throwable e) { // the class itself may not load
            return String.valueOf(e);
        }
    }

    private static boolean epollLoads() {
        try {
            return Epoll.isAvailable();
        } catch (Throwable e) { // a missing or broken native library must leave NIO
            return false;
        }
    }

    private static boolean ioUringLoads() {
        try {
            return IoUring.isAvailable();
        } catch (Throwable e) {
            return false;
        }
    }

    private static NetTransport epoll() {
        return new NetTransport("epoll", EpollIoHandler::newFactory, EpollServerSocketChannel.class,
                EpollSocketChannel.class);
    }

    private static NetTransport ioUring() {
        return new NetTransport("io_uring", IoUringIoHandler::newFactory, IoUringServerSocketChannel.class,
                IoUringSocketChannel.class);
    }
}
