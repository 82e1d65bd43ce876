package org.arbiter.gateway.netty;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.arbiter.common.config.ConfigException;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.MessageCodec;
import org.arbiter.gateway.Lifecycle;
import org.arbiter.runtime.admin.AdminGuard;
import org.arbiter.runtime.admin.AdminServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's admin routes: reads ({@code GET /health}, {@code /ready}, {@code /allocation},
 * {@code /stats}, {@code /metrics} in Prometheus text) are open; mutations ({@code POST /drain},
 * {@code POST /reload}, and any other method on any path) pass the {@link AdminGuard} first (a
 * bearer token, the admin port's own origin) or are refused with nothing done. One instance per
 * connection, on the admin event loop of an {@link AdminServer}, which holds the limits (connection
 * cap, head limit, request timeout).
 */
public final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(AdminHandler.class);
    private static final String PATHS = "{\"error\":\"not found\",\"paths\":[\"/health\",\"/ready\",\"/allocation\","
            + "\"/stats\",\"/metrics\",\"POST /drain\",\"POST /drain?final=true\",\"POST /reload\"]}";

    /** What the admin API shows and does. Implementations are thread-safe. */
    public interface Api {
        /** Liveness is the port answering; readiness is this. */
        Lifecycle.Readiness readiness();

        /**
         * Starts a graceful drain; true if this call started it, false if one was under way.
         *
         * @param finalStop the process is to stay stopped (exit 0); otherwise it exits with a
         *                  status its service manager restarts it on
         */
        boolean drain(boolean finalStop);

        /** Counts a refused mutation by its reason ({@code unauthorized}, {@code crossOrigin}, {@code mutationsDisabled}). */
        default void refusedMutation(String reason) {
        }

        /** The exit status the process will end with after the drain under way (or that would start now). */
        default int drainExitStatus() {
            return 0;
        }

        Allocation allocation();

        /** With pools, each pool's allocation in force (every pool is followed on its own); empty without. */
        default Map<String, Allocation> poolAllocations() {
            return Map.of();
        }

        Future<GatewayStats> stats();

        String prometheus();

        /** Allocations refused so far, by reason tag. */
        default Map<String, Long> refused() {
            return Map.of();
        }

        /** The configuration version in force. */
        default DataPlane.ConfigVersion configVersion() {
            return new DataPlane.ConfigVersion(0, "", Instant.EPOCH);
        }

        /**
         * Reloads the configuration file off the caller's thread; fails with the file's errors, or
         * when there is no file. Requests made while a reload runs share the next one.
         */
        default CompletableFuture<ReloadReport> reload() {
            return CompletableFuture.failedFuture(new IllegalStateException("reload not supported"));
        }
    }

    private final Api api;
    private final AdminGuard guard;

    /** @param guard who may drive the mutations */
    public AdminHandler(Api api, AdminGuard guard) {
        this.api = requireNonNull(api, "api");
        this.guard = requireNonNull(guard, "guard");
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) throws Exception {
        if (AdminServer.refuseUnreadable(ctx, req)) {
            return;
        }
        boolean keepAlive = HttpUtil.isKeepAlive(req);
        QueryStringDecoder query = new QueryStringDecoder(req.uri());
        String path = query.path();
        boolean read = req.method().equals(HttpMethod.GET) || req.method().equals(HttpMethod.HEAD);
        if (!read) {
            Optional<AdminGuard.Refusal> no = guard.check(req, (InetSocketAddress) ctx.channel().localAddress());
            if (no.isPresent()) {
                api.refusedMutation(no.get().error());
                refuse(ctx, keepAlive, req, no.get());
                return;
            }
        }
        if (req.method().equals(HttpMethod.POST) && path.equals("/drain")) {
            List<String> fin = query.parameters().getOrDefault("final", List.of("false"));
            if (fin.size() != 1 || !fin.get(0).equals("true") && !fin.get(0).equals("false")) {
                send(ctx, keepAlive, HttpResponseStatus.BAD_REQUEST, error("badParameter",
                        "final: " + String.join(",", fin) + " (expected: true or false)"));
                return;
            }
            boolean finalStop = fin.get(0).equals("true");
            boolean started = api.drain(finalStop);
            LOG.info("admin: POST /drain{} from {}: {}", finalStop ? "?final=true" : "", ctx.channel().remoteAddress(),
                    started ? "drain started" : "a drain was under way");
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("draining", true);
            m.put("started", started);
            m.put("exitStatus", api.drainExitStatus());
            send(ctx, keepAlive, HttpResponseStatus.ACCEPTED, json(m));
            return;
        }
        if (req.method().equals(HttpMethod.POST) && path.equals("/reload")) {
            api.reload().whenComplete((r, e) -> ctx.executor().execute(() -> answerReload(ctx, keepAlive, r, e)));
            return;
        }
        if (!read) {
            send(ctx, keepAlive, HttpResponseStatus.METHOD_NOT_ALLOWED,
                    "{\"error\":\"GET only (POST /drain, POST /reload)\"}");
            return;
        }
        switch (path) {
            case "/health" -> send(ctx, keepAlive, HttpResponseStatus.OK, "{\"status\":\"up\"}");
            case "/ready" -> {
                Lifecycle.Readiness r = api.readiness();
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("ready", r.ready());
                r.reason().ifPresent(reason -> m.put("reason", reason.wireName()));
                m.put("detail", r.detail());
                send(ctx, keepAlive, r.ready() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, json(m));
            }
            case "/allocation" -> {
                Allocation a = api.allocation();
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("epoch", a.epoch());
                m.put("version", a.version());
                m.put("at", a.at().toString());
                m.put("source", a.source());
                m.put("weights", a.weights());
                m.put("serverCaps", a.serverCaps());
                Map<String, Allocation> pools = api.poolAllocations();
                if (!pools.isEmpty() && !pools.containsKey("")) {
                    // each pool's stamp: whose epoch the gateway follows for it
                    Map<String, Object> byPool = new LinkedHashMap<>();
                    pools.forEach((pool, pa) -> byPool.put(pool, Map.of("epoch", pa.epoch(), "version", pa.version(),
                            "at", pa.at().toString(), "source", pa.source())));
                    m.put("pools", byPool);
                }
                m.put("refused", api.refused());
                DataPlane.ConfigVersion v = api.configVersion();
                m.put("config", Map.of("version", v.counter(), "hash", v.hash(), "at", v.at().toString()));
                send(ctx, keepAlive, HttpResponseStatus.OK, json(m));
            }
            case "/stats" -> api.stats().addListener(f -> {
                if (f.isSuccess()) {
                    send(ctx, keepAlive, HttpResponseStatus.OK, MessageCodec.encodeToString((GatewayStats) f.getNow()));
                } else {
                    send(ctx, keepAlive, HttpResponseStatus.SERVICE_UNAVAILABLE, "{\"error\":\"stats unavailable\"}");
                }
            });
            case "/metrics" -> AdminServer.reply(ctx, keepAlive, HttpResponseStatus.OK,
                    "text/plain; version=0.0.4; charset=utf-8", api.prometheus());
            default -> send(ctx, keepAlive, HttpResponseStatus.NOT_FOUND, PATHS);
        }
    }

    private void answerReload(ChannelHandlerContext ctx, boolean keepAlive, ReloadReport r, Throwable e) {
        Map<String, Object> m = new LinkedHashMap<>();
        try {
            if (e != null) {
                Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                m.put("reloaded", false);
                m.put("errors", cause instanceof ConfigException ce ? ce.errors() : List.of(String.valueOf(cause.getMessage())));
                send(ctx, keepAlive, HttpResponseStatus.UNPROCESSABLE_ENTITY, json(m));
                return;
            }
            m.put("reloaded", true);
            m.put("version", r.version());
            m.put("hash", r.hash());
            m.put("applied", r.applied());
            m.put("notApplied", r.notApplied());
            send(ctx, keepAlive, HttpResponseStatus.OK, json(m));
        } catch (RuntimeException | JsonProcessingException x) {
            send(ctx, false, HttpResponseStatus.INTERNAL_SERVER_ERROR, "{\"error\":\"reload\"}");
        }
    }

    private static void refuse(ChannelHandlerContext ctx, boolean keepAlive, FullHttpRequest req, AdminGuard.Refusal no)
            throws JsonProcessingException {
        LOG.debug("admin: {} {} from {} refused: {}", req.method(), req.uri(), ctx.channel().remoteAddress(), no.detail());
        String body = error(no.error(), no.detail());
        AdminServer.reply(ctx, keepAlive, no.status(), "application/json", body, h -> {
            if (no.asksForToken()) {
                h.set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"arbiter-admin\"");
            }
        });
    }

    private static String error(String error, String detail) throws JsonProcessingException {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("error", error);
        m.put("detail", detail);
        return json(m);
    }

    private static String json(Map<String, ?> m) throws JsonProcessingException {
        return MessageCodec.mapper().writeValueAsString(m);
    }

    private static void send(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, String body) {
        AdminServer.reply(ctx, keepAlive, status, "application/json", body);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
