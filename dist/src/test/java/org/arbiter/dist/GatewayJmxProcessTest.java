package org.arbiter.dist;

import org.arbiter.runtime.net.Ports;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A gateway as its own process with remote JMX: the arbiter MBeans show its weights. */
final class GatewayJmxProcessTest {

    @TempDir
    Path dir;

    @Test
    void standaloneGateway_exposesItsAllocationOverRemoteJmx() throws Exception {
        int jmx = Ports.free();
        Path config = dir.resolve("cluster.yaml");
        Files.writeString(config, """
                classes:
                  - {name: premium, target: 2s, weight: 8, match: {header: {X-Class: premium}}}
                  - {name: basic, target: 3s, weight: 2, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9", concurrency: 10}
                gateways:
                  - {id: g1, port: 0, adminPort: 0}
                """);
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-Dcom.sun.management.jmxremote.port=" + jmx, "-Dcom.sun.management.jmxremote.rmi.port=" + jmx,
                "-Dcom.sun.management.jmxremote.authenticate=false", "-Dcom.sun.management.jmxremote.ssl=false",
                "-Djava.rmi.server.hostname=127.0.0.1", "-Dcom.sun.management.jmxremote.host=127.0.0.1",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "gateway", "--config", config.toString(), "--id", "g1");
        pb.redirectErrorStream(true);
        Process p = pb.start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String ready = CompletableFuture.supplyAsync(() -> {
                try {
                    String line;
                    while ((line = out.readLine()) != null) {
                        if (line.startsWith("gateway g1 ready on")) {
                            return line;
                        }
                    }
                } catch (IOException ignored) {
                    // ended
                }
                return null;
            }).get(30, TimeUnit.SECONDS);
            assertThat(ready).isNotNull();
            CompletableFuture.runAsync(() -> {
                try {
                    while (out.readLine() != null) {
                        // drain
                    }
                } catch (IOException ignored) {
                    // ended
                }
            });
            JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmx + "/jmxrmi");
            try (JMXConnector c = JMXConnectorFactory.connect(url)) {
                MBeanServerConnection mbs = c.getMBeanServerConnection();
                ObjectName name = new ObjectName("arbiter:type=Gateway,id=g1");
                assertThat(mbs.isRegistered(name)).isTrue();
                String weights = String.valueOf(mbs.getAttribute(name, "Weights"));
                assertThat(weights).contains("premium").contains("8").contains("basic").contains("2");
                assertThat(mbs.queryNames(new ObjectName("arbiter:*"), null).size()).isGreaterThan(1);
            }
        } finally {
            p.destroy();
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }
}
