package org.arbiter.live.abuse;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * HTTP/1.1 over a socket the attacker controls byte by byte: requests written as given (so they
 * may be pipelined, partial or malformed on purpose) and answers read off the wire in the order
 * they come, each with its status and arrival time. Stateless; each call uses only its socket.
 */
final class RawHttp {

    private RawHttp() {
    }

    /**
     * One answer as read off the wire.
     *
     * @param status    the status code
     * @param atMillis  when its status line arrived, in ms after the request bytes were written
     */
    record Answer(int status, long atMillis) {
    }

    /**
     * Writes {@code request} on {@code socket} and reads answers until {@code max} have come, the
     * gateway closes the connection, or {@code timeoutSeconds} have passed; returns them in wire order.
     */
    static List<Answer> exchange(Socket socket, byte[] request, int max, double timeoutSeconds) throws IOException {
        long start = System.nanoTime();
        long deadline = start + (long) (timeoutSeconds * 1e9);
        socket.getOutputStream().write(request);
        socket.getOutputStream().flush();
        InputStream in = new BufferedInputStream(socket.getInputStream());
        List<Answer> answers = new ArrayList<>();
        try {
            while (answers.size() < max) {
                String statusLine = line(socket, in, deadline);
                if (statusLine == null) {
                    break;
                }
                if (statusLine.isEmpty()) {
                    continue;
                }
                int status = status(statusLine);
                answers.add(new Answer(status, (System.nanoTime() - start) / 1_000_000));
                body(socket, in, deadline, status);
            }
        } catch (SocketTimeoutException | EOFException e) {
            // the deadline passed or the connection ended mid-answer: what came so far is the result
        } catch (IOException e) {
            // reset by the gateway: what came so far is the result
        }
        return answers;
    }

    /** One request on a fresh connection to {@code host:port} ({@code Connection: close}); its status, or -1 if none came. */
    static int once(Socket socket, String head, double timeoutSeconds) {
        try (socket) {
            List<Answer> a = exchange(socket, head.getBytes(StandardCharsets.ISO_8859_1), 1, timeoutSeconds);
            return a.isEmpty() ? -1 : a.get(0).status();
        } catch (IOException e) {
            return -1;
        }
    }

    private static int status(String statusLine) throws IOException {
        String[] p = statusLine.split(" ", 3);
        if (p.length < 2 || !p[0].startsWith("HTTP/")) {
            throw new IOException("not a status line: " + statusLine);
        }
        try {
            return Integer.parseInt(p[1]);
        } catch (NumberFormatException e) {
            throw new IOException("not a status line: " + statusLine, e);
        }
    }

    /** Skips the headers and body of an answer whose status line was read. */
    private static void body(Socket socket, InputStream in, long deadline, int status) throws IOException {
        long length = -1;
        boolean chunked = false;
        String h;
        while ((h = line(socket, in, deadline)) != null && !h.isEmpty()) {
            int colon = h.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = h.substring(colon + 1).trim();
            if (name.equals("content-length")) {
                length = Long.parseLong(value);
            } else if (name.equals("transfer-encoding") && value.toLowerCase(Locale.ROOT).contains("chunked")) {
                chunked = true;
            }
        }
        if (h == null) {
            throw new EOFException();
        }
        if (status < 200 || status == 204 || status == 304) {
            return;
        }
        if (chunked) {
            while (true) {
                String size = line(socket, in, deadline);
                if (size == null) {
                    throw new EOFException();
                }
                long n = Long.parseLong(size.split(";", 2)[0].trim(), 16);
                if (n == 0) {
                    while ((h = line(socket, in, deadline)) != null && !h.isEmpty()) {
                        // trailers
                    }
                    return;
                }
                skip(socket, in, deadline, n + 2);
            }
        }
        if (length >= 0) {
            skip(socket, in, deadline, length);
        } else {
            skip(socket, in, deadline, Long.MAX_VALUE); // until the gateway closes
        }
    }

    private static void skip(Socket socket, InputStream in, long deadline, long n) throws IOException {
        byte[] buf = new byte[8192];
        while (n > 0) {
            timeout(socket, deadline);
            int r = in.read(buf, 0, (int) Math.min(buf.length, n));
            if (r < 0) {
                if (n == Long.MAX_VALUE) {
                    return;
                }
                throw new EOFException();
            }
            n -= r;
        }
    }

    /** One CRLF- (or LF-) terminated line, or null at the end of the stream before any byte. */
    private static String line(Socket socket, InputStream in, long deadline) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (true) {
            timeout(socket, deadline);
            int c = in.read();
            if (c < 0) {
                if (b.size() == 0) {
                    return null;
                }
                throw new EOFException();
            }
            if (c == '\n') {
                String s = b.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            if (b.size() > 65_536) {
                throw new IOException("line longer than 64 KiB");
            }
            b.write(c);
        }
    }

    private static void timeout(Socket socket, long deadline) throws IOException {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
            throw new SocketTimeoutException("deadline");
        }
        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
    }
}
