package org.arbiter.gateway.netty;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.arbiter.common.config.GatewayHttpConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * The access log: one line per request the gateway finished, whoever answered it.
 *
 * Lines:   combined  the Apache/nginx "combined" format, then the gateway's fields as key=value:
 *                    client - - [time] "request line" status bytes "referer" "user-agent"
 *                    class=... server=... queue_ms=... backend_ms=... total_ms=... reason=...
 *          json      one JSON object per line with the same fields.
 *          The request line is the one received; path= is what was classified and forwarded.
 *          reason names why the gateway answered itself (queueFull, badHost, backendTimeout...),
 *          "-" / null when the server answered; "clientClosed" when the client left first.
 * Writing: through the SLF4J logger "arbiter.access.<gateway>" at INFO. When the backend is
 *          Log4j 2 (as in the distribution), open() gives that logger its own appender: a
 *          RollingFileAppender (size-based, maxFiles kept) behind a non-blocking AsyncAppender,
 *          so the event loop only enqueues; additivity is off, so lines do not reach the main
 *          log. Under another SLF4J backend the lines go to that logger and its own configuration.
 *
 * Thread-safety: record() may be called from any thread (it is called on the data-plane loop);
 * close() once, when the gateway stops.
 */

/** The gateway's access log. Thread-safe; see the design note in the source. */
public final class AccessLog implements AutoCloseable {

    /** One finished request. Times in milliseconds; -1 when the phase did not happen. */
    record Entry(long epochMillis, String client, String method, String target, String path, String version,
                 int status, long bytes, String referer, String userAgent, String className, String server,
                 double queueMs, double backendMs, double totalMs, String reason) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(AccessLog.class);
    private static final DateTimeFormatter CLF = DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    /** Writes nothing. */
    public static final AccessLog OFF = new AccessLog(null, false, null);

    private final Logger out;
    private final boolean json;
    private final Runnable onClose;

    private AccessLog(Logger out, boolean json, Runnable onClose) {
        this.out = out;
        this.json = json;
        this.onClose = onClose;
    }

    /** The access log of gateway {@code gatewayId} as configured, or {@link #OFF}. */
    public static AccessLog open(GatewayHttpConfig.AccessLog config, String gatewayId) {
        requireNonNull(config, "config");
        requireNonNull(gatewayId, "gatewayId");
        if (!config.enabled()) {
            return OFF;
        }
        String loggerName = "arbiter.access." + gatewayId;
        Runnable onClose = () -> { };
        try {
            onClose = Log4jAccessAppender.install(loggerName, config.pathFor(gatewayId), config.maxFileBytes(),
                    config.maxFiles());
        } catch (LinkageError | RuntimeException e) {
            LOG.warn("access log of gateway {}: cannot set up a rolling file at {} ({}); lines go to logger {}",
                    gatewayId, config.pathFor(gatewayId), e.toString(), loggerName);
        }
        return new AccessLog(LoggerFactory.getLogger(loggerName), config.format() == GatewayHttpConfig.AccessLog.Format.JSON, onClose);
    }

    boolean enabled() {
        return out != null;
    }

    void record(Entry e) {
        if (out == null) {
            return;
        }
        try {
            out.info(json ? json(e) : combined(e));
        } catch (RuntimeException ex) {
            LOG.debug("access log: {}", ex.toString());
        }
    }

    static String combined(Entry e) {
        StringBuilder sb = new StringBuilder(256);
        sb.append(dash(e.client())).append(" - - [").append(CLF.format(Instant.ofEpochMilli(e.epochMillis())))
                .append("] \"");
        quoted(sb, e.method() == null ? "-" : e.method() + " " + e.target() + " " + e.version());
        sb.append("\" ").append(e.status()).append(' ').append(e.bytes() > 0 ? Long.toString(e.bytes()) : "-")
                .append(" \"");
        quoted(sb, e.referer() == null ? "-" : e.referer());
        sb.append("\" \"");
        quoted(sb, e.userAgent() == null ? "-" : e.userAgent());
        sb.append("\" class=").append(dash(e.className())).append(" server=").append(dash(e.server()))
                .append(" queue_ms=").append(ms(e.queueMs())).append(" backend_ms=").append(ms(e.backendMs()))
                .append(" total_ms=").append(ms(e.totalMs())).append(" path=");
        quoted(sb, e.path() == null ? "-" : e.path());
        sb.append(" reason=").append(dash(e.reason()));
        return sb.toString();
    }

    static String json(Entry e) {
        StringBuilder sb = new StringBuilder(320);
        sb.append("{\"time\":");
        str(sb, Instant.ofEpochMilli(e.epochMillis()).toString());
        sb.append(",\"client\":");
        str(sb, e.client());
        sb.append(",\"method\":");
        str(sb, e.method());
        sb.append(",\"target\":");
        str(sb, e.target());
        sb.append(",\"path\":");
        str(sb, e.path());
        sb.append(",\"version\":");
        str(sb, e.version());
        sb.append(",\"status\":").append(e.status()).append(",\"bytes\":").append(e.bytes()).append(",\"class\":");
        str(sb, e.className());
        sb.append(",\"server\":");
        str(sb, e.server());
        sb.append(",\"queueMs\":").append(e.queueMs() < 0 ? "null" : ms(e.queueMs()))
                .append(",\"backendMs\":").append(e.backendMs() < 0 ? "null" : ms(e.backendMs()))
                .append(",\"totalMs\":").append(e.totalMs() < 0 ? "null" : ms(e.totalMs()))
                .append(",\"reason\":");
        str(sb, e.reason());
        sb.append(",\"referer\":");
        str(sb, e.referer());
        sb.append(",\"userAgent\":");
        str(sb, e.userAgent());
        return sb.append('}').toString();
    }

    private static String dash(String s) {
        return s == null || s.isEmpty() ? "-" : s;
    }

    private static String ms(double v) {
        return v < 0 ? "-" : String.format(Locale.ROOT, "%.3f", v);
    }

    /** Escapes '"', '\' and control or non-ASCII characters as \xHH (as nginx does). */
    private static void quoted(StringBuilder sb, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f) {
                sb.append(String.format("\\x%02X", (int) c & 0xff));
            } else {
                sb.append(c);
            }
        }
    }

    private static void str(StringBuilder sb, String s) {
        if (s == null) {
            sb.append("null");
            return;
        }
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                default -> {
                    if (c < 0x20 || c >= 0x7f) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    /** Detaches the appender (the file is flushed and closed). */
    @Override
    public void close() {
        if (onClose != null) {
            onClose.run();
        }
    }
}
