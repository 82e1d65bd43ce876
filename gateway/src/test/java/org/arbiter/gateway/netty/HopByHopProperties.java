package org.arbiter.gateway.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.HttpConversionUtil.ExtensionHeaderNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link HopByHop}'s one-pass scan lets the data plane skip about twenty hashed removals when a message holds
 * none of the fields they remove. On random header sets (names from the removed ones, near misses and ordinary
 * ones, in random case; Connection values naming other fields): the scan never says "none" when a removal
 * would change something, and {@code strip} removes exactly what the removal-only version (as it stood before
 * issue 34, below) did.
 */
final class HopByHopProperties {

    private static final List<String> NAMES = List.of("Connection", "Proxy-Connection", "Keep-Alive", "TE", "Transfer-Encoding",
            "Upgrade", "Trailer", "Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto",
            "x-http2-stream-id", "x-http2-scheme", "x-http2-path", "x-http2-stream-dependency-id", "x-http2-stream-weight",
            "Host", "Accept", "X-Class", "Content-Length", "Cookie", "X-Forwarded-Prot", "Connectio", "TE2", "Trailers",
            "x-http2", "x-http2-", "Forwarded-For", "Keep-Alive2", "X-Custom");

    /** The removal-only strip, before the scan. */
    private static void referenceStrip(HttpHeaders headers) {
        List<String> named = new ArrayList<>();
        for (String v : headers.getAll(HttpHeaderNames.CONNECTION)) {
            for (String token : v.split(",")) {
                if (!token.trim().isEmpty()) {
                    named.add(token.trim());
                }
            }
        }
        named.forEach(headers::remove);
        for (CharSequence n : List.of(HttpHeaderNames.CONNECTION, "proxy-connection", HttpHeaderNames.KEEP_ALIVE,
                HttpHeaderNames.TE, HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderNames.UPGRADE, HttpHeaderNames.TRAILER)) {
            headers.remove(n);
        }
    }

    /** Every removal a request went through before the scan: hop-by-hop, HTTP/2 extensions, forwarded fields. */
    private static void referenceRemovals(HttpHeaders h) {
        referenceStrip(h);
        for (ExtensionHeaderNames e : List.of(ExtensionHeaderNames.STREAM_ID, ExtensionHeaderNames.SCHEME,
                ExtensionHeaderNames.PATH, ExtensionHeaderNames.STREAM_DEPENDENCY_ID, ExtensionHeaderNames.STREAM_WEIGHT)) {
            h.remove(e.text());
        }
        for (String n : List.of("Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto")) {
            h.remove(n);
        }
    }

    @Provide
    Arbitrary<List<String[]>> headerSets() {
        Arbitrary<String> name = Arbitraries.of(NAMES).flatMap(n -> Arbitraries.of(n, n.toLowerCase(Locale.ROOT),
                n.toUpperCase(Locale.ROOT)));
        Arbitrary<String> value = Arbitraries.oneOf(Arbitraries.of("close", "keep-alive", "upgrade", "x-custom, te",
                "Keep-Alive, X-Class", ", cookie ,", "1"), Arbitraries.strings().alpha().ofMaxLength(6));
        return net.jqwik.api.Combinators.combine(name, value).as((n, v) -> new String[] {n, v}).list().ofMaxSize(8);
    }

    private static HttpHeaders headers(List<String[]> set) {
        HttpHeaders h = new DefaultHttpHeaders();
        set.forEach(nv -> h.add(nv[0], nv[1]));
        return h;
    }

    private static List<String> entries(HttpHeaders h) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, String> e : h) {
            out.add(e.getKey() + ": " + e.getValue());
        }
        return out;
    }

    @Property(tries = 5000)
    void whenTheScanFindsNothing_noRemovalWouldHaveChangedAnything(@ForAll("headerSets") List<String[]> set) {
        HttpHeaders h = headers(set);
        if (!HopByHop.anyListed(h)) {
            HttpHeaders after = headers(set);
            referenceRemovals(after);
            assertThat(entries(after)).isEqualTo(entries(h));
        }
    }

    @Property(tries = 5000)
    void stripRemovesWhatTheRemovalOnlyVersionDid(@ForAll("headerSets") List<String[]> set) {
        HttpHeaders fast = headers(set);
        HttpHeaders reference = headers(set);
        HopByHop.strip(fast);
        referenceStrip(reference);
        assertThat(entries(fast)).isEqualTo(entries(reference));
    }
}
