package org.arbiter.dist;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.arbiter.common.kafka.EmbeddedKafka;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code arbiter kafka}: a real single-node KRaft broker on 127.0.0.1. */
@Command(name = "kafka", mixinStandardHelpOptions = true,
        description = {"Runs a single-node Kafka broker (KRaft, broker and controller in one process) on 127.0.0.1.",
                "Prints 'kafka ready on 127.0.0.1:PORT' when clients can connect; Ctrl-C or SIGTERM stops it cleanly.",
                "Restarted with the same --data, it keeps its topics and records."})
final class KafkaCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--port", defaultValue = "9092", description = "Client port (default: ${DEFAULT-VALUE}; 0 = any free port).")
    int port;

    @Option(names = "--controller-port", defaultValue = "-1",
            description = "KRaft controller port (default: --port + 1; 0 = any free port).")
    int controllerPort;

    @Option(names = "--data", defaultValue = "arbiter-kafka-data", description = "Data directory (default: ${DEFAULT-VALUE}).")
    Path data;

    @Override
    public Integer call() throws Exception {
        if (port < 0 || port > 65535) {
            throw new ArbiterCommand.UsageException("--port: " + port + " (expected: 0..65535)");
        }
        int controller = controllerPort == -1 ? (port == 0 ? 0 : port + 1) : controllerPort;
        if (controller < 0 || controller > 65535) {
            throw new ArbiterCommand.UsageException("--controller-port: " + controller + " (expected: 0..65535)");
        }
        EmbeddedKafka kafka = EmbeddedKafka.start(data, port, controller);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            kafka.close();
            stopped.countDown();
        }, "kafka-shutdown"));
        spec.commandLine().getOut().println("kafka ready on " + kafka.bootstrap() + " (controller 127.0.0.1:"
                + kafka.controllerPort() + ", data " + data.toAbsolutePath() + ")");
        spec.commandLine().getOut().flush();
        stopped.await();
        return 0;
    }
}
