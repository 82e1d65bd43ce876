package org.arbiter.gateway.bench;

import org.junit.jupiter.api.Test;

/**
 * Launches {@link GatewayBenchmark} from Surefire; not part of the normal suite (its name matches
 * no include pattern). Run it explicitly:
 * {@code ./mvnw -B -o -pl gateway test -Dtest=GatewayBenchmarkRun -Dbench.args="--duration 15"}.
 */
final class GatewayBenchmarkRun {

    @Test
    void run() throws Exception {
        String args = System.getProperty("bench.args", "");
        GatewayBenchmark.main(args.isBlank() ? new String[0] : args.trim().split("\\s+"));
    }
}
