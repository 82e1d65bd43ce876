package org.arbiter.gateway.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpServerCodec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.gateway.DropReason;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.gateway.GatewayTestSupport;
import org.arbiter.gateway.Outcome;
import org.arbiter.gateway.Ticket;
import org.arbiter.gateway.allocation.ConfiguredAllocation;
import org.arbiter.gateway.dispatch.Balancers;
import org.arbiter.gateway.scheduler.Schedulers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The frontend pipeline on an EmbeddedChannel: the answers that need no backend. */
final class FrontendHandlerTest {

    private EmbeddedChannel channel;
    private DataPlane plane;
    private GatewayCore<Attempt> core;

    private void start(int queueLimit, String queueTimeout) {
        start("{maxHeaderBytes: 1KiB, maxBodyBytes: 1KiB}", queueLimit, queueTimeout, null, c -> { });
    }

    /** {@code before} runs on the core before every cap is set to 0 and the plane is built. */
    private void start(String dispatch, int queueLimit, String queueTimeout, PlaneListener listener,
                       Consumer<GatewayCore<Attempt>> before) {
        ClusterConfig cluster = GatewayTestSupport.withDispatch(dispatch, queueLimit, queueTimeout);
        channel = new EmbeddedChannel();
        // caps 0: nothing leaves the queues, so no backend is needed
        Allocation closed = new Allocation(1, Instant.EPOCH, "g1", 1, Map.of(), Map.of("s1", 0), "test");
        long startNanos = System.nanoTime() - 60_000_000_000L;
        core = new GatewayCore<>(cluster, "g1", ConfiguredAllocation.of(cluster, "g1", true, Instant.EPOCH),
                Schedulers.of(cluster.dispatch()), Balancers.of(cluster.dispatch(), new SplittableRandom(1)),
                startNanos);
        before.accept(core);
        core.applyAllocation(closed);
        plane = new DataPlane(channel.eventLoop(), cluster, core, listener, null);
        var d = cluster.dispatch();
        channel.pipeline().addLast(new HttpServerCodec(new HttpDecoderConfig().setMaxHeaderSize((int) d.maxHeaderBytes())),
                new RequestAggregator(d.maxBodyBytes(), plane.bodyBudget()), new FrontendHandler(plane));
    }

    @AfterEach
    void tearDown() {
        plane.close();
        channel.finishAndReleaseAll();
    }

    private FullHttpResponse response() {
        EmbeddedChannel decoder = new EmbeddedChannel(new HttpResponseDecoder(), new HttpObjectAggregator(1 << 20));
        for (Object o; (o = channel.readOutbound()) != null; ) {
            decoder.writeInbound(o);
        }
        FullHttpResponse r = decoder.readInbound();
        decoder.finishAndReleaseAll();
        return r;
    }

    private void write(String s) {
        channel.writeInbound(Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1));
    }

    private static String body(FullHttpResponse r) {
        ByteBuf c = r.content();
        return c.toString(StandardCharsets.UTF_8);
    }

    @Test
    void malformedRequestLine_gets400() {
        start(10, "5s");
        write("NOT A REQUEST LINE AT ALL\r\n\r\n");
        FullHttpResponse r = response();
        assertThat(r.status().code()).isEqualTo(400);
        assertThat(r.headers().get("Connection")).isEqualTo("close");
        r.release();
    }

    @Test
    void headerOverMaxHeaderBytes_gets431() {
        start(10, "5s");
        write("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(2048) + "\r\n\r\n");
        FullHttpResponse r = response();
        assertThat(r.status().code()).isEqualTo(431);
        r.release();
    }

    @Test
    void bodyOverMaxBodyBytes_gets413() {
        start(10, "5s");
        write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4096\r\n\r\n");
        FullHttpResponse r = response();
        assertThat(r.status().code()).isEqualTo(413);
        assertThat(body(r)).contains("bodyTooLarge");
        r.release();
    }

    @Test
    void fullQueue_gets503WithRetryAfterAndTheClass_andTheRequestBodyIsReleased() {
        start(0, "5s");
        write("POST /p HTTP/1.1\r\nHost: x\r\nX-Class: premium\r\nContent-Length: 3\r\n\r\nabc");
        FullHttpResponse r = response();
        assertThat(r.status().code()).isEqualTo(503);
        assertThat(r.headers().get("Retry-After")).isEqualTo("1");
        assertThat(r.headers().get("X-Arbiter-Class")).isEqualTo("premium");
        assertThat(body(r)).contains("\"class\":\"premium\"", "\"reason\":\"queueFull\"");
        r.release();
        assertThat(channel.isActive()).isTrue();
    }

    @Test
    void aShedRequest_gets503WithRetryAfterAndReasonShed_atOnce_andIsCountedAsShed() {
        List<String> drops = new ArrayList<>();
        PlaneListener listener = new PlaneListener() {
            @Override
            public void arrival(String className) {
            }

            @Override
            public void dropped(String className, DropReason reason) {
                drops.add(className + " " + reason.wireName());
            }

            @Override
            public void responded(String className, long nanos) {
            }
        };
        start("{maxHeaderBytes: 1KiB, maxBodyBytes: 1KiB, admission: {mode: deadline}}", 10, "5s", listener, c -> {
            // a minute ago: basic measured at 4 s of service (past its 2 s target alone), and one release
            // from a backlog after 1 s queued (the configured cap is 10: fill it first)
            long t0 = System.nanoTime() - 60_000_000_000L;
            List<Ticket<Attempt>> first = new ArrayList<>();
            for (int i = 0; i < 11; i++) {
                c.offer(null, "basic", t0);
                Ticket<Attempt> t = c.next(t0);
                if (t != null) {
                    first.add(t);
                }
            }
            assertThat(first).hasSize(10);
            for (Ticket<Attempt> t : first) {
                c.complete(t, Outcome.OK, t0 + 4_000_000_000L);
            }
            Ticket<Attempt> last = c.next(t0 + 4_000_000_000L);
            c.complete(last, Outcome.OK, t0 + 8_000_000_000L);
            assertThat(c.queued() + c.inFlightTotal()).isZero();
        });
        write("POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
        FullHttpResponse r = response();
        assertThat(r.status().code()).isEqualTo(503);
        assertThat(r.headers().get("Retry-After")).isEqualTo("1");
        assertThat(r.headers().get("X-Arbiter-Class")).isEqualTo("basic");
        assertThat(body(r)).contains("\"class\":\"basic\"", "\"reason\":\"shed\"");
        r.release();
        assertThat(channel.isActive()).isTrue();
        assertThat(core.queued()).isZero();
        assertThat(drops).containsExactly("basic shed");
        assertThat(core.snapshot(Instant.now(), System.nanoTime()).classes().get("basic").drops())
                .containsEntry("shed", 1L).containsEntry("queueFull", 0L);
    }

    @Test
    void queuedRequest_ofAClosedClient_leavesTheQueue() {
        start(10, "5s");
        write("GET /p HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(core.queued()).isEqualTo(1);
        channel.close();
        channel.runPendingTasks();
        assertThat(core.queued()).isZero();
    }
}
