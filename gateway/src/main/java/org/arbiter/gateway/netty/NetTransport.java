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
     * The transport {@code wanted} names; for {@code auto} epoll if its native library loads here,
     * else NIO (io_uring only when named: see docs/gateway.md, "Event loops and transport").
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
            case AUTO -> epollLoads() ? epoll() : NIO;
        };
    }

    /** Why {@code auto} did not take a native transport, for the start-up line; empty if it did. */
    public static String whyNotNative() {
        return epollLoads() ? "" : "epoll: " + Epoll.unavailabilityCause();
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
