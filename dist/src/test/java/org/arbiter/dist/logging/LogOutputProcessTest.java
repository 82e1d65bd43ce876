package org.arbiter.dist.logging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.arbiter.dist.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator sees on stderr, from {@code arbiter} run as its own process: a standalone
 * gateway started and stopped with SIGTERM (it logs while it drains, from its shutdown path),
 * and the embedded broker's first start.
 */
final class LogOutputProcessTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TEXT_LINE =
            "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) (TRACE|DEBUG|INFO |WARN |ERROR|FATAL) \\[[^\\]]+\\] \\S+ - .*";

    @TempDir
    Path dir;

    @Test
    void jsonFormat_everyLineIsOneJsonObject_withTimeLevelThreadLoggerMessage() throws Exception {
        List<String> lines = runGateway("--log-format", "json");
        assertThat(lines).as("stderr (exit %d, stdout %s)", exit, stdout).isNotEmpty();
        for (String line : lines) {
            JsonNode n = JSON.readTree(line);
            assertThat(n.isObject()).as(line).isTrue();
            List<String> keys = new ArrayList<>();
            n.fieldNames().forEachRemaining(keys::add);
            assertThat(keys).as(line).startsWith("time", "level", "thread", "logger", "message")
                    .isSubsetOf("time", "level", "thread", "logger", "message", "exception");
            assertThat(OffsetDateTime.parse(n.get("time").asText())).as(line).isNotNull();
            assertThat(n.get("thread").asText()).as(line).isNotBlank();
        }
        assertThat(lines).anySatisfy(line -> {
            JsonNode n = JSON.readTree(line);
            assertThat(n.get("logger").asText()).isEqualTo("org.arbiter.gateway.server.Gateway");
            assertThat(n.get("level").asText()).isEqualTo("INFO");
            assertThat(n.get("message").asText()).startsWith("gateway g1: drained");
        });
    }

    @Test
    void textFormat_linesCarryIsoTimeWithZone_levelAndThread_andNoShutdownHookWarning() throws Exception {
        List<String> lines = runGateway();
        assertThat(lines).as("stderr (exit %d, stdout %s)", exit, stdout).isNotEmpty().allMatch(l -> l.matches(TEXT_LINE), "a text log line");
        assertThat(lines).anyMatch(l -> l.contains(" Gateway - gateway g1: drained"));
        assertThat(lines).noneMatch(l -> l.contains("shutdown hook"));
    }

    @Test
    void embeddedBroker_firstStart_logsNoMetadataNotice() throws Exception {
        Process p = start(List.of("--log-format", "json", "kafka", "--port", "0", "--controller-port", "0",
                "--data", dir.resolve("kafka").toString()), "kafka ready on ");
        List<String> err = stopAndReadStderr(p);
        assertThat(err).noneMatch(l -> l.contains("metadata log appears to be empty"));
        assertThat(err).noneMatch(l -> l.contains("shutdown hook"));
        for (String line : err) {
            assertThat(JSON.readTree(line).has("message")).as(line).isTrue();
        }
    }

    private List<String> runGateway(String... global) throws Exception {
        Path config = dir.resolve("cluster.yaml");
        Files.writeString(config, """
                classes:
                  - {name: basic, target: 1s, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9"}
                gateways:
                  - {id: g1, port: 18080, adminPort: 18180}
                """);
        List<String> args = new ArrayList<>(List.of(global));
        args.addAll(List.of("gateway", "--config", config.toString(), "--id", "g1", "--port", "0", "--admin-port", "0"));
        return stopAndReadStderr(start(args, "gateway g1 ready on "));
    }

    private final List<String> stdout = Collections.synchronizedList(new ArrayList<>());
    private Path stderrFile;
    private int exit = -1;

    private Process start(List<String> args, String readyPrefix) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(args);
        stderrFile = Files.createTempFile(dir, "stderr", ".txt");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectError(stderrFile.toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<Boolean> ready = CompletableFuture.supplyAsync(() -> {
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith(readyPrefix)) {
                        return true;
                    }
                }
                return false;
            } catch (IOException e) {
                return false;
            }
        });
        if (!ready.get(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("no '" + readyPrefix + "' line; stderr: " + Files.readString(stderrFile));
        }
        CompletableFuture.runAsync(() -> {
            try {
                for (String line; (line = out.readLine()) != null; ) {
                    stdout.add(line);
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
        return p;
    }

    private List<String> stopAndReadStderr(Process p) throws Exception {
        p.destroy(); // SIGTERM
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("did not stop within 60 s of SIGTERM");
        }
        exit = p.exitValue();
        return Files.readAllLines(stderrFile).stream().filter(l -> !l.isBlank()).toList();
    }
}
