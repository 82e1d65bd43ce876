package org.arbiter.gateway.bench;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.server.Gateway;
import org.arbiter.gateway.server.GatewayOptions;
import org.arbiter.runtime.netty.NettyDefaults;

/**
 * The gateway as its own process for {@link GatewayBenchmark}: {@code java -cp <test classpath>
 * org.arbiter.gateway.bench.BenchGatewayMain cluster.yaml g1} loads the file, starts gateway
 * {@code g1} standalone (no Kafka) on the file's ports, prints {@code READY <port> <adminPort>} on
 * stdout, and runs until its standard input closes (the benchmark's end) or it is terminated.
 * This is what {@code arbiter gateway --config cluster.yaml --id g1} does without a bootstrap,
 * minus the command line and logging setup of dist's {@code Main}, which the gateway module
 * cannot depend on.
 */
public final class BenchGatewayMain {

    private BenchGatewayMain() {
    }

    public static void main(String[] args) throws Exception {
        NettyDefaults.apply(); // as dist's Main does
        if (args.length != 2) {
            System.err.println("usage: BenchGatewayMain CLUSTER_YAML GATEWAY_ID");
            System.exit(2);
        }
        Gateway gateway = Gateway.start(ConfigLoader.load(Path.of(args[0])), args[1],
                GatewayOptions.defaults().standalone());
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            gateway.close();
            stop.countDown();
        }, "bench-gateway-stop"));
        System.out.println("READY " + gateway.port() + " " + gateway.adminPort());
        System.out.flush();
        Thread watcher = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // the benchmark never writes; end of input means it is done
                }
            } catch (java.io.IOException e) {
                // treated as end of input
            }
            System.exit(0);
        }, "bench-gateway-stdin");
        watcher.setDaemon(true);
        watcher.start();
        stop.await();
    }
}
