package org.arbiter.gateway.bench;

import org.junit.jupiter.api.Test;

/**
 * Launches {@link GatewayBenchmark} from Surefire; not part of the normal suite (its name matches
 * no include pattern). Run it explicitly from the repository's root (docs/performance.md):
 * {@code ./mvnw -B -o -pl gateway -am test -Dtest=GatewayBenchmarkRun -Dsurefire.failIfNoSpecifiedTests=false
 * -Dfuzz.skip=true -Dbench.args="--out target/bench.md"}.
 */
final class GatewayBenchmarkRun {

    @Test
    void run() throws Exception {
        String args = System.getProperty("bench.args", "");
        GatewayBenchmark.main(args.isBlank() ? new String[0] : args.trim().split("\\s+"));
    }
}
