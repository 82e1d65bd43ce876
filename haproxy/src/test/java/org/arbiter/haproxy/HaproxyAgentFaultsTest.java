package org.arbiter.haproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.runtime.net.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a real HAProxy cannot be made to answer: a Runtime API socket (a fake on a UNIX socket, stateful:
 * it keeps each cell's maxconn, weight and state as HAProxy does) that answers garbage, stops mid-line,
 * refuses commands or never answers. The agent logs, counts, says why on {@code /ready}, and keeps its loop:
 * once the socket behaves it converges.
 */
class HaproxyAgentFaultsTest {

    @TempDir
    Path dir;

    private FakeSocket fake;
    private HaproxyAgent agent;

    enum Mode { OK, GARBAGE, TRUNCATED, REFUSE_SET, HANG }

    /** A minimal stateful Runtime API: show stat, show servers state, set maxconn/weight/state. */
    static final class FakeSocket implements AutoCloseable {
        volatile Mode mode = Mode.OK;
        final Map<String, int[]> cells = new LinkedHashMap<>(); // backend/server → {slim (0 = none), weight, admin}
        final AtomicInteger sets = new AtomicInteger();
        private final ServerSocketChannel server;
        private final Thread thread;

        FakeSocket(Path path) throws IOException {
            for (String b : new String[] {"class.premium", "class.basic"}) {
                for (String s : new String[] {"s1", "s2"}) {
                    cells.put(b + "/" + s, new int[] {0, 1, 0});
                }
            }
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(path));
            thread = new Thread(this::serve, "fake-runtime-api");
            thread.setDaemon(true);
            thread.start();
        }

        private void serve() {
            while (server.isOpen()) {
                try (SocketChannel ch = server.accept()) {
                    ByteBuffer in = ByteBuffer.allocate(4096);
                    while (in.position() == 0 || in.get(in.position() - 1) != '\n') {
                        if (ch.read(in) < 0) {
                            break;
                        }
                    }
                    String cmd = new String(in.array(), 0, in.position(), StandardCharsets.UTF_8).strip();
                    if (mode == Mode.HANG) {
                        Thread.sleep(3000);
                        continue;
                    }
                    ch.write(ByteBuffer.wrap(answer(cmd).getBytes(StandardCharsets.UTF_8)));
                } catch (IOException | InterruptedException e) {
                    if (!server.isOpen()) {
                        return;
                    }
                }
            }
        }

        private synchronized String answer(String cmd) {
            if (cmd.equals("show stat")) {
                StringBuilder sb = new StringBuilder("# pxname,svname,qcur,scur,slim,stot,status,weight,hrsp_1xx,"
                        + "hrsp_2xx,hrsp_3xx,hrsp_4xx,hrsp_5xx,hrsp_other,econ,eresp\n");
                cells.forEach((k, v) -> {
                    String[] bs = k.split("/");
                    sb.append(bs[0]).append(',').append(bs[1]).append(",0,0,").append(v[0] == 0 ? "" : v[0])
                            .append(",0,").append(v[2] == 8 ? "DRAIN" : "UP").append(',').append(v[1])
                            .append(",0,0,0,0,0,0,0,0\n");
                });
                sb.append("class.premium,BACKEND,0,0,100,0,UP,1,0,0,0,0,0,0,0,0\n");
                sb.append("class.basic,BACKEND,0,0,100,0,UP,1,0,0,0,0,0,0,0,0\n");
                if (mode == Mode.GARBAGE) {
                    return "<html>502 Bad Gateway</html>\n";
                }
                return mode == Mode.TRUNCATED ? sb.substring(0, sb.length() / 2) : sb.toString();
            }
            if (cmd.equals("show servers state")) {
                StringBuilder sb = new StringBuilder("1\n# be_id be_name srv_id srv_name srv_addr srv_op_state "
                        + "srv_admin_state srv_uweight srv_iweight\n");
                cells.forEach((k, v) -> {
                    String[] bs = k.split("/");
                    sb.append("3 ").append(bs[0]).append(" 1 ").append(bs[1]).append(" 127.0.0.1 2 ").append(v[2])
                            .append(' ').append(v[1]).append(" 1\n");
                });
                return sb.toString();
            }
            if (mode == Mode.REFUSE_SET) {
                return "Permission denied\n";
            }
            String[] w = cmd.split(" ");
            sets.incrementAndGet();
            if (cmd.startsWith("set maxconn server ") && cells.containsKey(w[3])) {
                cells.get(w[3])[0] = Integer.parseInt(w[4]);
                return "\n";
            }
            if (cmd.startsWith("set weight ") && cells.containsKey(w[2])) {
                cells.get(w[2])[1] = Integer.parseInt(w[3]);
                return "\n";
            }
            if (cmd.startsWith("set server ") && cells.containsKey(w[2])) {
                cells.get(w[2])[2] = w[4].equals("drain") ? 8 : w[4].equals("maint") ? 1 : 0;
                return "\n";
            }
            return "Unknown command '" + cmd + "'\n";
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }

    @AfterEach
    void stop() throws IOException {
        if (agent != null) {
            agent.close();
        }
        if (fake != null) {
            fake.close();
        }
    }

    private String ready(int port) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/ready")).build(), HttpResponse.BodyHandlers.ofString());
        return r.statusCode() + " " + r.body();
    }

    private String metrics(int port) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void everyFaultIsNamedOnReadyAndTheLoopConvergesOnceTheSocketBehaves() throws Exception {
        Path socket = dir.resolve("fake.sock");
        fake = new FakeSocket(socket);
        fake.mode = Mode.GARBAGE;
        int[] ports = Ports.free(2);
        Path yaml = dir.resolve("cluster.yaml");
        Files.writeString(yaml, """
                classes:
                  - {name: premium, target: 1s, weight: 6, match: {header: {X-Class: premium}}}
                  - {name: basic, target: 2s, weight: 4, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:1", concurrency: 5}
                  - {id: s2, url: "http://127.0.0.1:2", concurrency: 5}
                gateways:
                  - {id: g1, kind: haproxy, port: %d, adminPort: %d}
                """.formatted(ports[0], ports[1]));
        ClusterConfig cluster = ConfigLoader.load(yaml);
        agent = HaproxyAgent.start(cluster, "g1", RuntimeApi.of(socket.toString(), 500),
                new HaproxyAgent.Options(null, null, 0.1));
        int admin = agent.adminPort();
        await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
                assertThat(ready(admin)).startsWith("503").contains("malformed").contains("CSV header"));

        fake.mode = Mode.TRUNCATED;
        await().atMost(Duration.ofSeconds(3)).untilAsserted(() ->
                assertThat(ready(admin)).startsWith("503").contains("malformed").contains("truncated"));

        fake.mode = Mode.HANG;
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(ready(admin)).startsWith("503").contains("unreachable").contains("no answer"));

        fake.mode = Mode.REFUSE_SET;
        await().atMost(Duration.ofSeconds(6)).untilAsserted(() -> {
            assertThat(ready(admin)).startsWith("503").contains("applying");
            assertThat(metrics(admin)).containsPattern("arbiter_haproxy_commands_total\\{.*result=\"refused\".*\\} [1-9]");
        });
        assertThat(fake.sets.get()).isZero();

        fake.mode = Mode.OK;
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(ready(admin)).startsWith("200"));
        // the configured 6:4 of 5 + 5 slots: 3 + 3 premium, 2 + 2 basic
        assertThat(fake.cells.get("class.premium/s1")).containsExactly(3, 3, 0);
        assertThat(fake.cells.get("class.basic/s2")).containsExactly(2, 2, 0);
        assertThat(agent.verified()).isNotNull();
    }
}
