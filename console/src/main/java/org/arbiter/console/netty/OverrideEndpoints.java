package org.arbiter.console.netty;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.CREATED;
import static io.netty.handler.codec.http.HttpResponseStatus.INTERNAL_SERVER_ERROR;
import static io.netty.handler.codec.http.HttpResponseStatus.NOT_FOUND;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;
import static io.netty.handler.codec.http.HttpResponseStatus.SERVICE_UNAVAILABLE;
import static org.arbiter.console.netty.Replies.clip;
import static org.arbiter.console.netty.Replies.send;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.arbiter.common.message.Message;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.console.OverrideRequest;
import org.arbiter.console.auth.Principal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /api/overrides} (pin) and {@code DELETE /api/overrides/{id}} (unpin), for an admin:
 * {@link OverrideRequest} checks the body; the override is published to the overrides topic and,
 * once acknowledged, applied to the feed so the list is current at once (503 when the topic does
 * not acknowledge within {@value #PUBLISH_TIMEOUT_SECONDS} s).
 *
 * <p>Called on a connection's event loop; publishing (which may block on Kafka metadata) runs on
 * {@code blocking} and the answer is handed back to the event loop.
 */
final class OverrideEndpoints {

    // Logged under the handler's name, as before the handler was split.
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleHttpHandler.class);
    private static final int PUBLISH_TIMEOUT_SECONDS = 15;
    private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(PUBLISH_TIMEOUT_SECONDS);

    private final ConsoleHttpHandler.Shared s;
    private final Replies replies;

    OverrideEndpoints(ConsoleHttpHandler.Shared shared, Replies replies) {
        this.s = shared;
        this.replies = replies;
    }

    void pin(ChannelHandlerContext ctx, FullHttpRequest req, Principal p) {
        JsonNode body = replies.jsonBody(ctx, req);
        if (body == null) {
            return;
        }
        OverrideRequest.Result r = OverrideRequest.read(body, s.state().config(), s.state().overrides().values(), p.name(),
                s.clock().instant());
        if (r instanceof OverrideRequest.Result.Invalid i) {
            replies.sendError(ctx, req, BAD_REQUEST, i.message(), i.field(), i.rule());
            return;
        }
        OperatorOverride o = ((OverrideRequest.Result.Valid) r).override();
        publish(ctx, req, () -> s.overrides().publish(o), () -> {
            s.feed().onOverride(o.id(), o);
            FullHttpResponse resp = replies.jsonResponse(CREATED, o);
            resp.headers().set(HttpHeaderNames.LOCATION, "/api/overrides/" + o.id());
            return resp;
        });
    }

    void unpin(ChannelHandlerContext ctx, FullHttpRequest req, Principal p, String id) {
        // QueryStringDecoder.path() is already decoded
        OperatorOverride held = s.state().override(id);
        if (held == null) {
            replies.sendError(ctx, req, NOT_FOUND, "override " + clip(id)
                    + ": not in force (expected: an id from GET /api/overrides)", false);
            return;
        }
        OperatorOverride off = new OperatorOverride(Message.VERSION, s.clock().instant(), id, held.kind(), held.gateway(),
                held.cls(), held.server(), held.value(), held.phi(), held.alpha(), held.beta(), held.state(), false, p.name());
        // active:false first, so a reader that never sees the tombstone (compaction) still drops the pin.
        publish(ctx, req, () -> s.overrides().publish(off).thenCompose(v -> s.overrides().delete(id)), () -> {
            s.feed().onOverride(id, null);
            return replies.jsonResponse(OK, Map.of("id", id, "active", false));
        });
    }

    private interface ResponseSupplier {
        FullHttpResponse get();
    }

    private void publish(ChannelHandlerContext ctx, FullHttpRequest req,
                         Supplier<CompletableFuture<Void>> action, ResponseSupplier onDone) {
        req.retain();
        CompletableFuture.supplyAsync(action, s.blocking()).thenCompose(f -> f)
                .orTimeout(PUBLISH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((v, err) -> ctx.executor().execute(() -> {
                    try {
                        if (err != null) {
                            Throwable cause = err.getCause() != null ? err.getCause() : err;
                            replies.sendError(ctx, req, SERVICE_UNAVAILABLE, "overrides topic: not acknowledged ("
                                    + cause.getClass().getSimpleName() + ")", false);
                        } else {
                            send(ctx, req, onDone.get());
                        }
                    } catch (RuntimeException e) {
                        LOG.warn("publishing an override", e);
                        replies.sendError(ctx, req, INTERNAL_SERVER_ERROR, "internal error: "
                                + e.getClass().getSimpleName(), false);
                    } finally {
                        req.release();
                    }
                }));
    }
}
