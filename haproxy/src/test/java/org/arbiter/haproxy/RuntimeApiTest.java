package org.arbiter.haproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RuntimeApiTest {

    @Test
    void refusesWhatIsNeitherAPathNorHostPort() {
        assertThatThrownBy(() -> RuntimeApi.of("haproxy", 1000)).hasMessageContaining("--socket: haproxy")
                .hasMessageContaining("UNIX socket path or HOST:PORT");
        assertThatThrownBy(() -> RuntimeApi.of("127.0.0.1:0", 1000)).hasMessageContaining("port 1..65535");
        assertThatThrownBy(() -> RuntimeApi.of("127.0.0.1:http", 1000)).hasMessageContaining("port 1..65535");
        assertThatThrownBy(() -> RuntimeApi.of(":9999", 1000)).hasMessageContaining("HOST:PORT");
    }

    @Test
    void oneCommandPerConnectionOverTcp_andNoSecondCommandSmuggledIn() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             RuntimeApi api = RuntimeApi.of("127.0.0.1:" + server.getLocalPort(), 2000)) {
            Thread t = new Thread(() -> {
                try (Socket s = server.accept(); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                    StringBuilder cmd = new StringBuilder();
                    for (int b; (b = in.read()) != '\n' && b >= 0; ) {
                        cmd.append((char) b);
                    }
                    out.write(("you said: " + cmd + "\n").getBytes(StandardCharsets.UTF_8));
                } catch (Exception e) {
                    // the test fails on the answer
                }
            });
            t.start();
            assertThat(api.call("show info")).isEqualTo("you said: show info\n");
            t.join(5000);
            assertThatThrownBy(() -> api.call("show info; shutdown sessions server b/s"))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> api.call("show info\nshutdown frontend f")).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void nothingListeningIsUnreachableNamingTheSocket() {
        RuntimeApi api = RuntimeApi.of("/nonexistent/arbiter-test.sock", 1000);
        assertThatThrownBy(() -> api.call("show stat")).isInstanceOf(RuntimeApi.Unreachable.class)
                .hasMessageContaining("/nonexistent/arbiter-test.sock");
        api.close();
    }
}
