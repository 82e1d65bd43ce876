package org.arbiter.gateway.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The aggregator's two paths, on the real HTTP/1.1 decoder: bodyless requests as they came, the rest aggregated. */
final class RequestAggregatorTest {

    private static List<FullHttpRequest> decode(String wire) {
        EmbeddedChannel ch = new EmbeddedChannel(new HttpServerCodec(), new RequestAggregator(1 << 20, new BodyBudget(1 << 20)));
        ch.writeInbound(Unpooled.copiedBuffer(wire, StandardCharsets.US_ASCII));
        List<FullHttpRequest> out = new ArrayList<>();
        for (Object o; (o = ch.readInbound()) != null; ) {
            out.add((FullHttpRequest) o);
        }
        ch.finishAndReleaseAll();
        return out;
    }

    private static String body(FullHttpRequest r) {
        ByteBuf b = r.content();
        String s = b.toString(StandardCharsets.US_ASCII);
        r.release();
        return s;
    }

    @Test
    void aBodylessRequest_isHandedOnAsItCame_withoutAContentLength_andPipelinedOnesKeepTheirOrder() {
        List<FullHttpRequest> rs = decode("GET /a HTTP/1.1\r\nHost: h\r\nX-Class: premium\r\n\r\n"
                + "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
                + "GET /c HTTP/1.1\r\nHost: h\r\n\r\n"
                + "DELETE /d HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n");
        assertThat(rs).extracting(FullHttpRequest::uri).containsExactly("/a", "/b", "/c", "/d");
        assertThat(rs.get(0).headers().get("X-Class")).isEqualTo("premium");
        assertThat(rs.get(0).headers().contains("Content-Length")).as("the fast path adds none").isFalse();
        assertThat(rs.get(0).decoderResult().isSuccess()).isTrue();
        assertThat(body(rs.get(0))).isEmpty();
        assertThat(rs.get(1).headers().get("Content-Length")).isEqualTo("5");
        assertThat(body(rs.get(1))).isEqualTo("hello");
        assertThat(body(rs.get(2))).isEmpty();
        assertThat(rs.get(3).headers().get("Content-Length")).as("declared, so aggregated as before").isEqualTo("0");
        assertThat(body(rs.get(3))).isEmpty();
    }

    @Test
    void chunkedAndExpectingRequests_takeTheAggregatorsPath() {
        List<FullHttpRequest> rs = decode("POST /chunked HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "3\r\nabc\r\n0\r\n\r\n"
                + "GET /after HTTP/1.1\r\nHost: h\r\n\r\n");
        assertThat(rs).extracting(FullHttpRequest::uri).containsExactly("/chunked", "/after");
        assertThat(body(rs.get(0))).isEqualTo("abc");
        assertThat(rs.get(0).headers().get("Content-Length")).isEqualTo("3");
        assertThat(body(rs.get(1))).isEmpty();
    }

    @Test
    void aMalformedHead_goesOnMarkedFailed() {
        List<FullHttpRequest> rs = decode("GET /x HTTP/1.1\r\nHost: h\r\nBad Header: 1\r\n\r\n");
        assertThat(rs).hasSize(1);
        assertThat(rs.get(0).decoderResult().isFailure()).isTrue();
        rs.get(0).release();
    }
}
