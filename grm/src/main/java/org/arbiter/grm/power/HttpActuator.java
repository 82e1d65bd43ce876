package org.arbiter.grm.power;

import org.arbiter.grm.control.GrmCore.Seen;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.ServerState;

/**
 * {@code power.actuator: http}: simserver's admin API ({@code servers[].adminUrl}). One attempt
 * POSTs {@code {adminUrl}/power/on} or {@code /power/off}, then polls {@code GET {adminUrl}/status}
 * every poll interval until its {@code state} is {@code ON} (or {@code OFF}) and returns what it
 * saw. A server seen in the opposite stable state (still OFF after a power-on, e.g. the order was
 * lost or came while it was shutting down) gets the POST again, at most once a second. Past the
 * wait (the sizing start-up or shutdown delay plus {@code power.timeout}) the attempt fails with the
 * last state seen; a refused or failed request, or a non-2xx answer, fails it at once.
 *
 * <p>Thread-safe: one shared {@link HttpClient}; each call polls on the calling thread.
 */
public final class HttpActuator implements PowerActuator {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

    private final Duration onWait;
    private final Duration offWait;
    private final Duration pollInterval;
    private final HttpClient client;

    /**
     * @param onWait       how long a power-on may take to show ON
     * @param offWait      how long a power-off may take to show OFF
     * @param pollInterval between status requests
     */
    public HttpActuator(Duration onWait, Duration offWait, Duration pollInterval) {
        this.onWait = requireNonNull(onWait, "onWait");
        this.offWait = requireNonNull(offWait, "offWait");
        this.pollInterval = requireNonNull(pollInterval, "pollInterval");
        this.client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
                .version(HttpClient.Version.HTTP_1_1).build();
    }

    @Override
    public Seen actuate(ServerConfig server, ServerState action) throws ActuationException, InterruptedException {
        URI admin = server.adminUrl();
        if (admin == null) {
            throw new ActuationException(server.id() + ": no adminUrl (expected: servers[].adminUrl with actuator http)",
                    Seen.UNKNOWN);
        }
        String word = PowerActuator.word(action);
        String base = admin.toString().replaceAll("/+$", "");
        URI order = URI.create(base + "/power/" + word);
        URI status = URI.create(base + "/status");
        post(order);
        long started = System.nanoTime();
        long deadline = started + (action == ServerState.ON ? onWait : offWait).toNanos();
        long lastPost = started;
        String last = "unknown";
        while (true) {
            last = state(status);
            if (last.equals(action.name())) {
                return action == ServerState.ON ? Seen.UP : Seen.DOWN;
            }
            long now = System.nanoTime();
            boolean opposite = action == ServerState.ON ? last.equals("OFF") : last.equals("ON");
            if (opposite && now - lastPost >= 1_000_000_000L) {
                post(order);
                lastPost = now;
            }
            if (now >= deadline) {
                throw new ActuationException(server.id() + ": " + last + " " + seconds(now - started)
                        + " s after POST " + order + " (expected: " + action + ")", seen(last));
            }
            Thread.sleep(Math.max(1, Math.min(pollInterval.toMillis(), (deadline - now) / 1_000_000 + 1)));
        }
    }

    private void post(URI uri) throws ActuationException, InterruptedException {
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), "POST");
        if (r.statusCode() / 100 != 2) {
            throw new ActuationException("POST " + uri + ": HTTP " + r.statusCode() + " " + shorten(r.body())
                    + " (expected: 2xx)", Seen.UNKNOWN);
        }
    }

    /** The {@code state} of the status document: ON, OFF, BOOTING or SHUTTING_DOWN. */
    private String state(URI uri) throws ActuationException, InterruptedException {
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).GET().build(), "GET");
        if (r.statusCode() / 100 != 2) {
            throw new ActuationException("GET " + uri + ": HTTP " + r.statusCode() + " " + shorten(r.body())
                    + " (expected: 2xx)", Seen.UNKNOWN);
        }
        try {
            JsonNode n = JSON.readTree(r.body());
            String s = n == null ? null : n.path("state").asText(null);
            if (s == null) {
                throw new ActuationException("GET " + uri + ": no state in " + shorten(r.body())
                        + " (expected: {\"state\": \"ON\"|\"OFF\"|...})", Seen.UNKNOWN);
            }
            return s;
        } catch (IOException e) {
            throw new ActuationException("GET " + uri + ": not JSON: " + shorten(r.body()), Seen.UNKNOWN);
        }
    }

    private HttpResponse<String> send(HttpRequest request, String method) throws ActuationException, InterruptedException {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new ActuationException(method + " " + request.uri() + ": " + e, Seen.UNKNOWN);
        }
    }

    private static Seen seen(String simserverState) {
        return switch (simserverState) {
            case "ON" -> Seen.UP;
            case "OFF" -> Seen.DOWN;
            default -> Seen.UNKNOWN;
        };
    }

    private static String shorten(String s) {
        String t = s == null ? "" : s.strip().replace('\n', ' ');
        return t.length() > 200 ? t.substring(0, 200) + "…" : t;
    }

    private static String seconds(long nanos) {
        return Double.toString(Math.round(nanos / 1e8) / 10.0);
    }

    @Override
    public String name() {
        return "http";
    }
}
