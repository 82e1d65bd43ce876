package org.arbiter.console.netty;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.arbiter.common.bus.Publisher;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.console.Fixtures;
import org.arbiter.console.TestClock;
import org.arbiter.console.server.Console;
import org.junit.jupiter.api.Test;

/**
 * The console has the admin ports' request timeout (runtime's {@code RequestDeadline}): a client that
 * trickles a request line a byte at a time is closed at {@code dispatch.idleTimeout} from its start
 * (the reader-idle handler alone never closed it: each byte reset it), while an event stream, an
 * answer in progress, stays open past it. The connection cap is runtime's {@code ConnectionCap},
 * tested there (AdminServerSocketTest).
 */
final class ConsoleLimitsSocketTest {

    private static Console console() {
        String yaml = Fixtures.yaml(false, null) + "dispatch: {idleTimeout: 1s}\n";
        return Console.detached(ConfigLoader.parse(yaml), Publisher.noop(), "127.0.0.1", 0,
                new TestClock(Instant.parse("2026-03-01T12:00:00Z")));
    }

    @Test
    void aTrickledRequestLine_isClosedAtTheRequestTimeout_butAnEventStreamIsNot() throws Exception {
        try (Console c = console();
             Socket trickle = new Socket("127.0.0.1", c.port());
             Socket stream = new Socket("127.0.0.1", c.port())) {
            stream.getOutputStream().write(("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + Fixtures.VIEWER_TOKEN + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            OutputStream out = trickle.getOutputStream();
            byte[] line = "GET /api/overview HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ".getBytes(StandardCharsets.US_ASCII);
            boolean closed = false;
            int sent = 0;
            long t0 = System.nanoTime();
            // a byte every 100 ms for up to 10 s: the timeout is 1 s from the connection's start
            while (System.nanoTime() - t0 < 10_000_000_000L) {
                try {
                    out.write(line[sent % line.length]);
                    out.flush();
                    sent++;
                } catch (java.io.IOException e) {
                    closed = true;
                    break;
                }
                trickle.setSoTimeout(100);
                try {
                    if (trickle.getInputStream().read() == -1) {
                        closed = true;
                        break;
                    }
                } catch (SocketTimeoutException e) {
                    // still open
                } catch (java.io.IOException e) {
                    closed = true;
                    break;
                }
            }
            assertThat(closed).as("closed after %d trickled bytes", sent).isTrue();
            assertThat(sent).as("bytes sent before the close (one per 100 ms, the timeout 1 s)").isLessThan(40);
            System.out.printf("console: a request trickled a byte per 100 ms was closed after %d bytes (%.2f s)%n", sent,
                    (System.nanoTime() - t0) / 1e9);
            // the stream, answered since it opened, is still open well past the timeout
            stream.setSoTimeout(300);
            InputStream in = stream.getInputStream();
            byte[] buf = new byte[8192];
            boolean open = true;
            try {
                while (in.read(buf) != -1) {
                    // the stream's head and first events
                }
                open = false;
            } catch (SocketTimeoutException e) {
                // nothing more to read, and not closed
            }
            assertThat(open).as("the event stream is not timed").isTrue();
        }
    }
}
