package org.arbiter.console;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small HTTP client for the API tests. */
public final class Http {

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    public Http(String base) {
        this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    }

    public HttpResponse<String> get(String path, String... headers) {
        return send(request(path, headers).GET().build());
    }

    public HttpResponse<String> post(String path, String json, String... headers) {
        HttpRequest.Builder b = request(path, headers).POST(HttpRequest.BodyPublishers.ofString(json));
        if (java.util.Arrays.stream(headers).noneMatch(h -> h.equalsIgnoreCase("Content-Type"))) {
            b.header("Content-Type", "application/json");
        }
        return send(b.build());
    }

    public HttpResponse<String> delete(String path, String... headers) {
        return send(request(path, headers).DELETE().build());
    }

    public HttpRequest.Builder request(String path, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return b;
    }

    public HttpClient client() {
        return client;
    }

    public HttpResponse<String> send(HttpRequest r) {
        try {
            return client.send(r, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static String[] bearer(String token) {
        return new String[] {"Authorization", "Bearer " + token};
    }
}
