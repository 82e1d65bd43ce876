package org.arbiter.gateway.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.time.Instant;
import java.util.SplittableRandom;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.gateway.GatewayTestSupport;
import org.arbiter.gateway.Ticket;
import org.arbiter.gateway.allocation.ConfiguredAllocation;
import org.arbiter.gateway.dispatch.Balancers;
import org.arbiter.gateway.scheduler.Schedulers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A request's state machine: the transitions it allows, and the ones that fail loudly. */
final class AttemptTest {

    private EmbeddedChannel channel;
    private DataPlane plane;
    private FrontendHandler front;
    private GatewayCore<Attempt> core;
    private final java.util.List<FullHttpRequest> requests = new java.util.ArrayList<>();

    @BeforeEach
    void setUp() {
        ClusterConfig cluster = GatewayTestSupport.withDispatch("{}", 10, "5s");
        channel = new EmbeddedChannel();
        core = new GatewayCore<>(cluster, "g1", ConfiguredAllocation.of(cluster, "g1", true, Instant.EPOCH),
                Schedulers.of(cluster.dispatch()), Balancers.of(cluster.dispatch(), new SplittableRandom(1)), System.nanoTime());
        plane = new DataPlane(channel.eventLoop(), cluster, core, null, null);
        front = new FrontendHandler(plane);
        channel.pipeline().addLast(front);
    }

    @AfterEach
    void tearDown() {
        plane.close();
        channel.finishAndReleaseAll();
        requests.forEach(FullHttpRequest::release);
    }

    private Attempt attempt(String method) {
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(method), "/p",
                Unpooled.EMPTY_BUFFER);
        req.headers().set("Host", "x");
        requests.add(req);
        return new Attempt(front, req, "basic", true, true, false, 0, null);
    }

    /** Offered to the core and released by it (under no lock: the test is the only thread). */
    private Attempt dispatched() {
        Attempt a = attempt("GET");
        Ticket<Attempt> t = core.offer(a, a.className, 0);
        a.offered(t);
        assertThat(core.next(0)).isSameAs(t);
        a.dispatched();
        return a;
    }

    @Test
    void aServedRequest_goesQueuedDispatchedSendingStreamingDone() {
        Attempt a = attempt("GET");
        assertThat(a.state()).isEqualTo(Attempt.State.NEW);
        a.offered(core.offer(a, a.className, 0));
        assertThat(a.state()).isEqualTo(Attempt.State.QUEUED);
        core.next(0);
        a.dispatched();
        a.sending(channel);
        assertThat(a.state()).isEqualTo(Attempt.State.SENDING_REUSED);
        assertThat(a.state().sent()).isTrue();
        assertThat(a.on(channel)).isTrue();
        a.streaming(503);
        assertThat(a.takeUntoldStatus()).as("the head's status, told to the core once").isEqualTo(503);
        assertThat(a.takeUntoldStatus()).isZero();
        a.done();
        assertThat(a.over()).isTrue();
        assertThat(a.on(channel)).as("an answered request owns no connection").isFalse();
    }

    @Test
    void aFailureBeforeAnyByteWasSent_isRequeuedAsAFirstTry_butOneAfterIsARetryOnNewConnectionsOnly() {
        Attempt a = dispatched();
        a.connecting(channel);
        assertThat(Forwarder.failureOf(a.state(), new java.net.ConnectException()))
                .isEqualTo(org.arbiter.gateway.ServerHealth.Failure.CONNECT_REFUSED);
        a.requeued();
        assertThat(a.state()).isEqualTo(Attempt.State.QUEUED);
        a.dispatched();
        a.sending(channel); // a kept-alive connection
        assertThat(Forwarder.failureOf(a.state(), null)).isEqualTo(org.arbiter.gateway.ServerHealth.Failure.KEEP_ALIVE_CLOSED);
        a.requeued();
        assertThat(a.state()).isEqualTo(Attempt.State.RETRY_QUEUED);
        a.dispatched();
        assertThat(a.state().retry()).isTrue();
        assertThatThrownBy(() -> a.sending(channel)).as("a retry never takes a kept-alive connection")
                .isInstanceOf(IllegalStateException.class);
        a.connecting(channel);
        a.requeued(); // its new connection was refused: still a retry
        assertThat(a.state()).isEqualTo(Attempt.State.RETRY_QUEUED);
        a.dispatched();
        a.connecting(channel);
        a.sending(channel);
        assertThat(a.state()).isEqualTo(Attempt.State.RETRY_SENDING);
        assertThat(Forwarder.failureOf(a.state(), null)).isEqualTo(org.arbiter.gateway.ServerHealth.Failure.CLOSED);
        a.streaming(200);
        a.failed();
        assertThat(a.state()).isEqualTo(Attempt.State.FAILED);
    }

    @Test
    void aFinishedRequest_cannotBeFinishedAgain_norStreamed() {
        Attempt a = dispatched();
        a.sending(channel);
        a.done(); // the gateway's own answer (504)
        assertThatThrownBy(a::done).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(a::failed).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> a.streaming(200)).isInstanceOf(IllegalStateException.class).hasMessageContaining("DONE -> STREAMING");
    }

    @Test
    void aQueuedRequest_cannotStream_andARefusedOneIsNeverQueued() {
        Attempt a = attempt("GET");
        a.offered(core.offer(a, a.className, 0));
        assertThatThrownBy(() -> a.streaming(200)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> a.offered(null)).as("one offer per request").isInstanceOf(IllegalStateException.class);
        a.failed(); // the client left
        assertThat(a.over()).isTrue();
    }

    @Test
    void theHeadersAreRewrittenOnce_atArrival() {
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/p", Unpooled.EMPTY_BUFFER);
        req.headers().set("Connection", "keep-alive, X-Secret").set("X-Secret", "1").set("Keep-Alive", "timeout=5");
        requests.add(req);
        Attempt a = new Attempt(front, req, "basic", true, true, false, 0, null);
        assertThat(req.headers().names()).doesNotContain("Connection", "X-Secret", "Keep-Alive").contains("X-Forwarded-Proto");
        assertThat(a.state()).isEqualTo(Attempt.State.NEW);
    }

    /**
     * Over random event sequences: an event the machine does not allow throws and changes nothing;
     * once a request is over, every event throws; a request ends at most once.
     */
    @Test
    void randomEvents_illegalOnesThrowAndChangeNothing_andARequestEndsAtMostOnce() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(31);
        Ticket<Attempt> ticket = core.offer(attempt("GET"), "basic", 0);
        int ended = 0;
        int refused = 0;
        for (int run = 0; run < 2000; run++) {
            Attempt a = attempt("GET");
            int ends = 0;
            for (int step = 0; step < 12; step++) {
                Attempt.State before = a.state();
                try {
                    switch (random.nextInt(9)) {
                        case 0 -> a.offered(ticket);
                        case 1 -> a.dispatched();
                        case 2 -> a.connecting(channel);
                        case 3 -> a.sending(channel);
                        case 4 -> a.requeued();
                        case 5 -> a.streaming(200);
                        case 6 -> a.upgraded();
                        case 7 -> a.done();
                        default -> a.failed();
                    }
                    if (a.over()) {
                        ends++;
                    }
                    assertThat(before.over()).as("an event accepted after the end").isFalse();
                } catch (IllegalStateException e) {
                    refused++;
                    assertThat(a.state()).as("a refused event changes nothing").isEqualTo(before);
                }
                if (a.over()) {
                    break;
                }
            }
            assertThat(ends).isLessThanOrEqualTo(1);
            ended += ends;
            if (a.over()) {
                Attempt done = a;
                assertThatThrownBy(done::done).isInstanceOf(IllegalStateException.class);
                assertThatThrownBy(done::failed).isInstanceOf(IllegalStateException.class);
            }
        }
        assertThat(ended).as("sequences that reached an end").isGreaterThan(1000);
        assertThat(refused).as("illegal events tried").isGreaterThan(1000);
    }
}
