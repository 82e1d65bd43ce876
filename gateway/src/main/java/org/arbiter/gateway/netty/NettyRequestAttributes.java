package org.arbiter.gateway.netty;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import java.net.InetAddress;
import org.arbiter.gateway.RequestAttributes;

/** {@link RequestAttributes} over a Netty request, without copying. Confined to the request's event loop. */
final class NettyRequestAttributes implements RequestAttributes {

    private final HttpRequest request;
    private final InetAddress client;

    /** @param client the client's address (from a PROXY header or the peer), or null */
    NettyRequestAttributes(HttpRequest request, InetAddress client) {
        this.request = request;
        this.client = client;
    }

    @Override
    public byte[] clientAddress() {
        return client == null ? null : client.getAddress();
    }

    @Override
    public String method() {
        return request.method().name();
    }

    @Override
    public String path() {
        String uri = request.uri();
        int start = 0;
        if (!uri.startsWith("/")) {
            // absolute-form: scheme://authority/path
            int scheme = uri.indexOf("://");
            if (scheme >= 0) {
                int slash = uri.indexOf('/', scheme + 3);
                if (slash < 0) {
                    return "/";
                }
                start = slash;
            }
        }
        int q = uri.indexOf('?', start);
        return q < 0 ? uri.substring(start) : uri.substring(start, q);
    }

    @Override
    public String host() {
        String h = request.headers().get(HttpHeaderNames.HOST);
        if (h == null) {
            return null;
        }
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            return end < 0 ? h : h.substring(0, end + 1);
        }
        int colon = h.indexOf(':');
        return colon < 0 ? h : h.substring(0, colon);
    }

    @Override
    public String header(String name) {
        return request.headers().get(name);
    }
}
