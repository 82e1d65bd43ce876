package org.arbiter.live.abuse;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.net.ssl.SSLContext;

/**
 * The ordinary client that runs beside every attack: {@code threads} closed-loop clients, each
 * sending {@code GET /} over HTTP/1.1 keep-alive ({@link HttpClient}, one pool) and the next as
 * soon as the previous is answered or has failed. A request without an answer within the timeout,
 * or whose connection fails, is a failure. Every request is counted in the phase in which it was
 * sent. Thread-safe: {@link #phase} and {@link #stop} from any thread.
 */
final class OrdinaryClient {

    private final HttpClient http;
    private final URI uri;
    private final Duration timeout;
    private final Map<ProcSampler.Phase, Recorder> recorders = new EnumMap<>(ProcSampler.Phase.class);
    private final List<Thread> threads = new ArrayList<>();
    private volatile ProcSampler.Phase phase = ProcSampler.Phase.BEFORE;
    private volatile boolean running = true;

    private OrdinaryClient(URI uri, SSLContext ssl, double timeoutSeconds) {
        this.uri = uri;
        this.timeout = Duration.ofMillis((long) (timeoutSeconds * 1000));
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout);
        if (ssl != null) {
            b.sslContext(ssl);
        }
        http = b.build();
        for (ProcSampler.Phase p : ProcSampler.Phase.values()) {
            recorders.put(p, new Recorder());
        }
    }

    /** Starts {@code threads} clients sending to {@code uri} ({@code ssl}: the context for https, else null). */
    static OrdinaryClient start(URI uri, SSLContext ssl, int threads, double timeoutSeconds) {
        OrdinaryClient c = new OrdinaryClient(uri, ssl, timeoutSeconds);
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(c::loop, "ordinary-client-" + i);
            t.setDaemon(true);
            c.threads.add(t);
            t.start();
        }
        return c;
    }

    /** Waits until {@code n} requests were answered (in any phase) or {@code seconds} have passed. */
    void awaitAnswers(int n, double seconds) throws InterruptedException {
        long until = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < until && recorders.values().stream().mapToInt(Recorder::answeredCount).sum() < n) {
            Thread.sleep(20);
        }
    }

    /** Counts later requests in phase {@code p}. */
    void phase(ProcSampler.Phase p) {
        phase = p;
    }

    private void loop() {
        HttpRequest req = HttpRequest.newBuilder(uri).timeout(timeout).GET().build();
        while (running) {
            Recorder r = recorders.get(phase);
            long start = System.nanoTime();
            try {
                HttpResponse<Void> resp = http.send(req, HttpResponse.BodyHandlers.discarding());
                r.answered(resp.statusCode(), System.nanoTime() - start);
            } catch (InterruptedException e) {
                r.failed();
                return;
            } catch (Exception e) {
                r.failed();
                pause(50); // a refused connection fails at once: do not spin
            }
        }
    }

    /** Stops every client (a request in flight is given its timeout) and returns the tally of each phase. */
    Map<ProcSampler.Phase, ClientTally> stop() throws InterruptedException {
        running = false;
        for (Thread t : threads) {
            t.join(timeout.toMillis() + 2_000);
        }
        Map<ProcSampler.Phase, ClientTally> out = new EnumMap<>(ProcSampler.Phase.class);
        recorders.forEach((p, r) -> out.put(p, r.tally()));
        return out;
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One phase's counts; thread-safe by its lock. */
    private static final class Recorder {
        private int sent;
        private int failures;
        private final Map<Integer, Integer> statuses = new TreeMap<>();
        private final List<Long> latencies = new ArrayList<>();

        synchronized void answered(int status, long nanos) {
            sent++;
            statuses.merge(status, 1, Integer::sum);
            latencies.add(nanos);
        }

        synchronized int answeredCount() {
            return latencies.size();
        }

        synchronized void failed() {
            sent++;
            failures++;
        }

        synchronized ClientTally tally() {
            double p99 = -1;
            if (!latencies.isEmpty()) {
                long[] l = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
                int i = (int) Math.ceil(0.99 * l.length) - 1;
                p99 = Math.round(l[Math.max(0, i)] / 1e4) / 100.0;
            }
            return new ClientTally(sent, latencies.size(), statuses, failures, p99);
        }
    }
}
